/**
 * `legacy-metrics-api demo --workers N` as a person runs it: the built command in a child
 * process whose primary serves the whole server's legacy API and Prometheus from N workers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runBuilt } from '../migrate/liveDemo';

const MAIN = resolve(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const ANY_PORT_CONFIG = `
[[listen.http]]
  port = 0
  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/api"
`;

interface Demo {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function demo(args: string[]): Demo {
  const child = spawn(process.execPath, [MAIN, 'demo', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>(done =>
    child.on('exit', code => done(code))
  );
  return { child, output: () => output, exited };
}

/** Waits until `test` passes, failing with the demo's output after `timeoutMs`. */
async function until<T>(
  running: Demo,
  test: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await test();
    if (value !== undefined) return value;
    if (running.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`gave up; the demo printed:\n${running.output()}`);
    await new Promise(done => setTimeout(done, 100));
  }
}

describe('legacy-metrics-api demo --workers', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cluster-demo-'));
    config = join(dir, 'server.toml');
    await writeFile(config, ANY_PORT_CONFIG);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('should serve the whole server from the primary, and exit 0 on SIGTERM', async () => {
    const running = demo([
      '--config',
      config,
      '--prometheus-port',
      '0',
      '--workers',
      '3',
    ]);
    try {
      await until(running, () =>
        running.output().includes('press Ctrl-C to stop') ? true : undefined
      );
      expect(running.output()).toMatch(
        /^cluster: +3 workers, served by the primary \(pid \d+\)$/m
      );
      const api = /^legacy metrics API: (\S+) /m.exec(running.output())![1]!;
      const prometheus = /^Prometheus: +(\S+)$/m.exec(running.output())![1]!;
      const counts: number[] = [];
      await until(running, async () => {
        const response = await fetch(`${api}/all/xmppMessageSent`);
        // Not found until a worker's first tick names it.
        if (response.status !== 200) return undefined;
        const body = (await response.json()) as { metric: { count: number } };
        counts.push(body.metric.count);
        return counts.length >= 5 && body.metric.count > 0 ? true : undefined;
      });
      for (let i = 1; i < counts.length; i++)
        expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!);
      const listing = (await (await fetch(api)).json()) as {
        host_types: string[];
      };
      expect(listing.host_types).toEqual(['localhost', 'test type']);
      // The workers' cumulative readers export on their own interval: wait for their first.
      const sentTotal =
        /^xmppMessageSent_total\{host_type="localhost",otel_scope_name="messaging-server"\} \d+$/m;
      const exposition = await until(running, async () => {
        const text = await (await fetch(prometheus)).text();
        return sentTotal.test(text) ? text : undefined;
      });
      expect(exposition).toMatch(sentTotal);
      // The legacy API and the exposition are the same whole server's: compare agrees.
      const compared = await runBuilt([
        'compare',
        '--legacy',
        api.replace(/\/metrics$/, ''),
        '--prometheus',
        prometheus,
      ]);
      expect({
        code: compared.code,
        stderr: compared.stderr,
        ...(compared.code === 0 ? {} : { stdout: compared.stdout }),
      }).toEqual({ code: 0, stderr: '' });
      expect(compared.stdout).toContain('all compared keys agree');
    } finally {
      running.child.kill('SIGTERM');
    }
    expect(await running.exited).toBe(0);
  }, 45_000);

  it('should refuse a --workers that is not a positive integer', async () => {
    const running = demo(['--config', config, '--workers', '0']);
    expect(await running.exited).toBe(2);
    expect(running.output()).toContain(
      'demo: found --workers "0", expected an integer from 1 to 999'
    );
  });
});
