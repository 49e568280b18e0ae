/**
 * A server that answers the migration tools badly on purpose, on a real socket: one mode on one
 * path, the legacy API's listing and maps and an empty exposition everywhere else.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';

/** The ways the server misbehaves. */
export type HostileMode =
  | 'huge body'
  | 'gzip bomb'
  | 'endless chunked body'
  | 'slow drip'
  | 'JSON null'
  | '300,000 metrics'
  | 'redirect to another port'
  | 'no answer';

export const LISTING_PATH = '/api/metrics';
export const GROUP_PATH = '/api/metrics/host_type/localhost';
export const EXPOSITION_PATH = '/metrics';

const LISTING = JSON.stringify({
  host_types: ['localhost'],
  metrics: ['xmppMessageSent'],
  global: [],
});
const GROUP = JSON.stringify({
  metrics: { xmppMessageSent: { count: 12, one: 3 } },
});

const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** 1.2 GB, as the reproduction: announced, then streamed, never held whole. */
const HUGE_BYTES = 1_200_000_000;

/** Writes `chunk` until `total` bytes went out or the client left, minding backpressure. */
function stream(res: ServerResponse, chunk: Buffer, total: number): void {
  let sent = 0;
  const more = (): void => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  more();
}

/** Zeros, gzip-compressed as they are produced: a few MB on the wire for gigabytes inflated. */
function gzipBomb(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-encoding': 'gzip',
  });
  const zero = Buffer.alloc(1024 * 1024);
  let left = 10 * 1024; // 10 GiB of zeros
  const zeros = new Readable({
    read() {
      this.push(left-- > 0 ? zero : null);
    },
  });
  const gzip = createGzip({ level: 9 });
  res.once('close', () => {
    zeros.destroy();
    gzip.destroy();
  });
  zeros.pipe(gzip).pipe(res);
}

/** `{"metrics":{…300,000 spirals…}}`, streamed: about 13 MB. */
function manyMetrics(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const count = 300_000;
  let next = 0;
  const more = (): void => {
    while (next < count && !res.destroyed) {
      let part = next === 0 ? '{"metrics":{' : '';
      for (const end = Math.min(count, next + 1000); next < end; next++)
        part += `${next === 0 ? '' : ','}"xmppMessageSent${String(next).padStart(6, '0')}":{"count":${next},"one":3}`;
      if (next === count) part += '}}';
      if (!res.write(part)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  more();
}

function misbehave(
  mode: HostileMode,
  res: ServerResponse,
  otherPort: number,
  path: string
): void {
  switch (mode) {
    case 'huge body':
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': HUGE_BYTES,
      });
      return stream(res, CHUNK, HUGE_BYTES);
    case 'gzip bomb':
      return gzipBomb(res);
    case 'endless chunked body':
      res.writeHead(200, { 'content-type': 'text/plain' });
      return stream(res, CHUNK, Number.POSITIVE_INFINITY);
    case 'slow drip': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 200);
      res.once('close', () => clearInterval(drip));
      return;
    }
    case 'JSON null':
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('null');
    case '300,000 metrics':
      return manyMetrics(res);
    case 'redirect to another port':
      res.writeHead(302, { location: `http://127.0.0.1:${otherPort}${path}` });
      return void res.end();
    case 'no answer':
      return;
  }
}

/** A running hostile server. */
export interface HostileServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Switches the mode and the path it applies to. */
  set(mode: HostileMode, path: string): void;
  close(): Promise<void>;
}

/** Starts a hostile server on a free loopback port. */
export async function startHostileServer(): Promise<HostileServer> {
  let mode: HostileMode = 'no answer';
  let target = '';
  // The redirect's other origin: a server of its own that would answer well.
  const other = createServer((_req, res) => res.end(LISTING));
  await new Promise<void>(done => other.listen(0, '127.0.0.1', done));
  const otherPort = (other.address() as AddressInfo).port;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === target) return misbehave(mode, res, otherPort, path);
    if (path === LISTING_PATH) return void res.end(LISTING);
    if (path === GROUP_PATH) return void res.end(GROUP);
    if (path === EXPOSITION_PATH) return void res.end('');
    res.writeHead(404).end();
  });
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    set(next, path) {
      mode = next;
      target = path;
    },
    async close() {
      server.closeAllConnections();
      other.closeAllConnections();
      await Promise.all([
        new Promise(done => server.close(done)),
        new Promise(done => other.close(done)),
      ]);
    },
  };
}

const MAIN = join(
  resolve(__dirname, '..', '..'),
  'dist',
  'src',
  'cli',
  'main.js'
);
/**
 * Loaded into the command before its own code: on exit, writes the process's peak resident size
 * (VmHWM, kB: counted from exec, unlike getrusage's maxRSS, which keeps the forking runner's peak)
 * to the file named by LEGACY_TEST_PEAK_FILE.
 */
const REPORT_PEAK = `data:text/javascript,${encodeURIComponent(
  "import { readFileSync, writeFileSync } from 'node:fs';" +
    "process.on('exit', () => writeFileSync(process.env.LEGACY_TEST_PEAK_FILE, /VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]));"
)}`;

/** What a run of the built command did, with its peak resident memory. */
export interface MeasuredRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** Peak resident set size in MB (VmHWM). */
  readonly peakMb: number;
}

/** Runs the built command (at most `killAfterMs`), as a person would, measuring its peak memory. */
export function runMeasured(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  killAfterMs = 30_000
): Promise<MeasuredRun> {
  const report = join(
    tmpdir(),
    `legacy-peak-${process.pid}-${Math.random().toString(36).slice(2)}`
  );
  const started = Date.now();
  return new Promise(done => {
    const child = execFile(
      process.execPath,
      ['--import', REPORT_PEAK, MAIN, ...args],
      {
        env: { ...process.env, ...env, LEGACY_TEST_PEAK_FILE: report },
        timeout: killAfterMs,
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      },
      (_error, stdout, stderr) => {
        const ms = Date.now() - started;
        let peakKb = Number.NaN;
        try {
          peakKb = Number(readFileSync(report, 'utf8').trim());
          rmSync(report, { force: true });
        } catch {
          // No report: the child was killed; peakMb stays NaN and fails the test.
        }
        done({
          code: child.exitCode,
          stdout,
          stderr,
          ms,
          peakMb: peakKb / 1024,
        });
      }
    );
  });
}
