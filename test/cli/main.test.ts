import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startOtlpReceiver } from '../realClients/otlpReceiver';
import { httpRequest } from '../support/http';

/**
 * The built `legacy-metrics-api` as a person runs it: a real child process, its real standard
 * streams and signals, real sockets.
 */

const ROOT = resolve(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
/** A listener on a port the system picks, so that no test needs a fixed port. */
const ANY_PORT_CONFIG = `
[[listen.http]]
  port = 0
  [[listen.http.handlers.service_api]]
    host = "localhost"
    path = "/api"
`;
const READY = 'press Ctrl-C to stop';

interface Child {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function run(
  args: string[],
  cwd: string,
  stdin?: string,
  env: NodeJS.ProcessEnv = process.env
): Child {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd,
    env,
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  if (stdin !== undefined) child.stdin!.end(stdin);
  const exited = new Promise<number | null>(done =>
    child.on('exit', code => done(code))
  );
  return { child, output: () => output, exited };
}

/** Waits until the child has printed `text`; fails with its output when it exits or takes 15 s. */
async function waitFor(running: Child, text: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!running.output().includes(text)) {
    if (running.child.exitCode !== null || Date.now() > deadline)
      throw new Error(
        `expected ${JSON.stringify(text)}, got:\n${running.output()}`
      );
    await new Promise(done => setTimeout(done, 50));
  }
}

/** The legacy API's URL from the demo's startup line. */
function metricsUrl(running: Child): URL {
  const match = /^legacy metrics API: (\S+) /m.exec(running.output());
  if (match === null)
    throw new Error(`no startup line in:\n${running.output()}`);
  return new URL(match[1]!);
}

/** A connection that has sent all of a request but its last line: in flight until `finish`. */
function partialRequest(url: URL): Promise<{
  finish(): void;
  response: Promise<string>;
}> {
  return new Promise((done, fail) => {
    const socket: Socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n`
      );
      done({ finish: () => socket.write('\r\n'), response });
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const response = new Promise<string>((ended, broken) => {
      socket.on('end', () => ended(received));
      socket.on('error', broken);
    });
    socket.once('error', fail);
  });
}

/** A GET over a keep-alive agent: its status, or the error's code. */
const get = (url: URL, agent: Agent): Promise<number | string> =>
  httpRequest(url, { agent, headers: { host: 'localhost' } }).then(
    answer => answer.status,
    (error: NodeJS.ErrnoException) => error.code ?? error.message
  );

function refused(url: URL): Promise<boolean> {
  return new Promise(done => {
    const socket = connect(Number(url.port), url.hostname);
    socket.on('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED')
    );
  });
}

describe('legacy-metrics-api', () => {
  let dir: string;
  let config: string;
  const children: Child[] = [];

  function demo(...args: string[]): Child {
    const running = run(
      ['demo', '--config', config, '--prometheus-port', '0', ...args],
      dir
    );
    children.push(running);
    return running;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olma-main-'));
    config = join(dir, 'any-port.toml');
    await writeFile(config, ANY_PORT_CONFIG);
  });

  afterEach(() => {
    for (const { child } of children.splice(0))
      if (child.exitCode === null && child.signalCode === null)
        child.kill('SIGKILL');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('--version', () => {
    it("should print package.json's version and exit 0", async () => {
      const running = run(['--version'], dir);
      expect(await running.exited).toBe(0);
      expect(running.output()).toBe(`${VERSION}\n`);
    });
  });

  describe('check-config', () => {
    it('should read standard input for -', async () => {
      const running = run(
        ['check-config', '-'],
        dir,
        readFileSync(join(ROOT, 'examples', 'server.toml'), 'utf8')
      );
      expect(await running.exited).toBe(0);
      expect(running.output().split('\n')[0]).toBe(
        '<stdin>: valid TOML configuration: 1 listener, 1 handler group serving the legacy metrics API'
      );
    });

    it('should end quietly with status 0 when its reader has gone (| head -1)', async () => {
      const child = spawn(
        process.execPath,
        [MAIN, 'check-config', join(ROOT, 'examples', 'server.toml')],
        { stdio: ['ignore', 'pipe', 'pipe'] }
      );
      // Closing the pipe before the first line is written: every write fails with EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>(done =>
        child.on('exit', done)
      );
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    });
  });

  describe('demo', () => {
    it('should serve on the ports the system picks, Prometheus included', async () => {
      const running = demo();
      await waitFor(running, READY);
      const api = metricsUrl(running);
      expect(api.port).not.toBe('8088');
      expect((await fetch(api)).status).toBe(200);
      const prometheus = /^Prometheus: +(\S+)$/m.exec(running.output())![1]!;
      expect(new URL(prometheus).port).not.toBe('9464');
      expect((await fetch(prometheus)).status).toBe(200);
      running.child.kill('SIGINT');
      expect(await running.exited).toBe(0);
    });

    it('should run without Prometheus on --no-prometheus', async () => {
      const running = run(['demo', '--config', config, '--no-prometheus'], dir);
      children.push(running);
      await waitFor(running, READY);
      expect(running.output()).not.toMatch(/Prometheus|9464/);
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    });

    it.each(['SIGTERM', 'SIGINT'] as const)(
      'should finish the requests in flight under load on %s, refuse new connections, and exit 0',
      async signal => {
        const running = demo();
        await waitFor(running, READY);
        const api = metricsUrl(running);
        // Requests the server has begun to read when the signal comes: in flight by construction.
        const inFlight = await Promise.all(
          Array.from({ length: 16 }, () => partialRequest(api))
        );
        // And load: keep-alive clients polling as fast as they can.
        const agent = new Agent({ keepAlive: true, maxSockets: 8 });
        let loading = true;
        const outcomes: (number | string)[] = [];
        const pollers = Array.from({ length: 8 }, async () => {
          while (loading) outcomes.push(await get(api, agent));
        });
        while (outcomes.length < 200)
          await new Promise(done => setTimeout(done, 10));

        running.child.kill(signal);
        await waitFor(running, 'stopping');
        expect(await refused(api)).toBe(true);
        for (const request of inFlight) request.finish();
        const responses = await Promise.all(inFlight.map(r => r.response));
        loading = false;
        await Promise.all(pollers);
        agent.destroy();

        for (const response of responses) {
          expect(response).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
          expect(response.toLowerCase()).toContain('\r\nconnection: close\r\n');
          const body = response.slice(response.indexOf('\r\n\r\n') + 4);
          expect(JSON.parse(body)).toMatchObject({
            host_types: ['localhost', 'test type'],
          });
        }
        // Pollers only ever got an answer, or found the listener gone once the signal came.
        expect(
          outcomes.filter(
            outcome =>
              outcome !== 200 &&
              outcome !== 'ECONNREFUSED' &&
              outcome !== 'ECONNRESET'
          )
        ).toEqual([]);
        expect(
          outcomes.filter(outcome => outcome === 200).length
        ).toBeGreaterThan(200);
        expect(await running.exited).toBe(0);
        expect(running.output()).not.toContain('Error');
      }
    );

    it('should flush OTLP when it stops', async () => {
      const receiver = await startOtlpReceiver();
      try {
        const running = run(
          ['demo', '--config', config, '--no-prometheus'],
          dir,
          undefined,
          {
            ...process.env,
            OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url,
            // No periodic export before the signal: what arrives is the flush on shutdown.
            OTEL_METRIC_EXPORT_INTERVAL: '600000',
          }
        );
        children.push(running);
        await waitFor(running, READY);
        expect(receiver.requests).toHaveLength(0);
        running.child.kill('SIGTERM');
        expect(await running.exited).toBe(0);
        expect(receiver.failures).toEqual([]);
        expect(receiver.requests).toHaveLength(1);
        expect(
          receiver.requests[0]!.points.map(point => point.metric)
        ).toContain('nodeUpTime');
      } finally {
        await receiver.close();
      }
    });

    it('should close a request that never ends after the grace period and still exit 0', async () => {
      const running = demo();
      await waitFor(running, READY);
      const stuck = await partialRequest(metricsUrl(running));
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
      // Closed without an answer: it never finished its request.
      expect(await stuck.response.catch(() => '')).toBe('');
    });

    it('should exit at once on a second signal', async () => {
      const running = demo();
      await waitFor(running, READY);
      const stuck = await partialRequest(metricsUrl(running));
      running.child.kill('SIGTERM');
      await waitFor(running, 'stopping');
      let exited = false;
      void running.exited.then(() => (exited = true));
      await new Promise(done => setTimeout(done, 200));
      // Still waiting for the request in flight.
      expect(exited).toBe(false);
      running.child.kill('SIGINT');
      expect(await running.exited).toBe(130);
      await stuck.response.catch(() => '');
    });
  });
});
