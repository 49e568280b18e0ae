import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { runCli } from '../../src/cli/runCli';
import { startDemo } from '../../src/cli/demoCommand';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, write: (line: string) => out.push(line), writeErr: (line: string) => err.push(line) };
}

/** A port that was free a moment ago (for the Prometheus exporter, which cannot report its own). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe('runCli', () => {
  it('should print the usage on --help and exit 0', async () => {
    const io = capture();
    expect(await runCli(['--help'], io.write, io.writeErr)).toBe(0);
    expect(io.out.join('\n')).toContain('Usage: legacy-metrics-api <command> [options]');
  });

  it('should print the usage to stderr and exit 2 without a command', async () => {
    const io = capture();
    expect(await runCli([], io.write, io.writeErr)).toBe(2);
    expect(io.err.join('\n')).toContain('Usage: legacy-metrics-api');
  });

  it('should name an unknown command and exit 2', async () => {
    const io = capture();
    expect(await runCli(['serve'], io.write, io.writeErr)).toBe(2);
    expect(io.err).toEqual(['legacy-metrics-api: unknown command "serve"; expected one of: demo']);
  });

  it('should explain the demo command on --help', async () => {
    const io = capture();
    expect(await runCli(['demo', '--help'], io.write, io.writeErr)).toBe(0);
    expect(io.out.join('\n')).toContain('Usage: legacy-metrics-api demo');
  });
});

describe('startDemo', () => {
  it('should serve the simulated catalog on the legacy API and Prometheus from one provider', async () => {
    const lines: string[] = [];
    const demo = await startDemo({ legacyPort: 0, prometheusPort: await freePort(), out: (line) => lines.push(line) });
    try {
      // The demo's reader ticks once a second: wait for the first snapshot with traffic in it.
      const deadline = Date.now() + 10_000;
      let listing: { host_types: string[]; metrics: string[]; global: string[] } | undefined;
      while (Date.now() < deadline) {
        listing = (await (await fetch(`${demo.legacyUrl}/api/metrics`)).json()) as typeof listing;
        const global = (await (await fetch(`${demo.legacyUrl}/api/metrics/global`)).json()) as { metrics: object };
        // Stanza sizes appear with the first messages, once sessions are open.
        const messages = 'data.xmpp.sent.xml_stanza_size' in global.metrics;
        if (listing!.global.includes('nodeUpTime') && listing!.metrics.includes('sessionCount') && messages) break;
        await new Promise((done) => setTimeout(done, 200));
      }
      expect(listing!.host_types).toEqual(['localhost', 'test type']);
      expect(listing!.metrics).toEqual(expect.arrayContaining(['sessionCount', 'xmppMessageSent', 'sessionSuccessfulLogins', 'modRosterGets', 'xmppErrorTotal']));
      expect(listing!.global).toEqual(expect.arrayContaining(['nodeSessionCount', 'totalSessionCount', 'uniqueSessionCount', 'nodeUpTime']));
      const global = (await (await fetch(`${demo.legacyUrl}/api/metrics/global`)).json()) as { metrics: Record<string, unknown> };
      expect(global.metrics['data.xmpp.sent.xml_stanza_size']).toBeDefined();
      const exposition = await (await fetch(demo.prometheusUrl)).text();
      expect(exposition).toContain('xmppMessageSent_total{host_type="localhost"');
      expect(lines[0]).toBe(`legacy metrics API: ${demo.legacyUrl}/api/metrics (bound to 127.0.0.1, no authentication)`);
      expect(lines).toContain(`  curl ${demo.legacyUrl}/api/metrics/host_type/localhost`);
    } finally {
      await demo.stop();
    }
  });
});

describe('legacy-metrics-api demo (the built command)', () => {
  it('should start, serve, and exit 0 on SIGINT', async () => {
    const main = resolve(__dirname, '../../dist/src/cli/main.js');
    const child = spawn(process.execPath, [main, 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const deadline = Date.now() + 15_000;
      while (!output.includes('press Ctrl-C to stop') && Date.now() < deadline) {
        if (child.exitCode !== null) break;
        await new Promise((done) => setTimeout(done, 100));
      }
      if (output.includes('EADDRINUSE')) {
        // Another program holds the demo's fixed ports: the command must say so and exit 2.
        expect(await exited).toBe(2);
        expect(output).toMatch(/^legacy-metrics-api: cannot listen on 127\.0\.0\.1:\d+/m);
        return;
      }
      expect(output).toContain('legacy metrics API: http://127.0.0.1:8088/api/metrics');
      const res = await fetch('http://127.0.0.1:8088/api/metrics');
      expect(res.status).toBe(200);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toContain('stopping');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
