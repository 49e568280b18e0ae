import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Drives HTTP load with wrk (Debian package `wrk`), a separate process written in C, so that the
 * load generator costs the server's core as little as possible. One wrk thread, a fixed number
 * of keep-alive connections, a fixed duration.
 */

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  /** Bytes read, headers included. */
  readonly bytes: number;
  /** Socket errors, timeouts and non-2xx/3xx answers. */
  readonly errors: number;
}

/** A wrk script whose `done` hook prints the numbers as one JSON line. */
const REPORT_SCRIPT = `
done = function(summary, latency, requests)
  local e = summary.errors
  local p50 = -1
  local p99 = -1
  if summary.requests > 0 then
    p50 = latency:percentile(50)
    p99 = latency:percentile(99)
  end
  io.write(string.format(
    '\\nRESULT {"requests":%d,"durationUs":%d,"bytes":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect + e.read + e.write + e.status + e.timeout, p50, p99))
end
`;

let scriptPath: string | undefined;

/** Whether wrk is installed, with a hint when it is not. */
export function checkWrk(): string | undefined {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined)
    return 'wrk is not installed: apt-get install -y wrk';
  return undefined;
}

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A request not answered within this many seconds counts as an error. */
  readonly timeoutSeconds?: number;
}

export function runWrk(options: LoadOptions): Promise<LoadResult> {
  scriptPath ??= (() => {
    const path = join(
      mkdtempSync(join(tmpdir(), 'legacy-bench-')),
      'report.lua'
    );
    writeFileSync(path, REPORT_SCRIPT);
    return path;
  })();
  const args = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    `${options.timeoutSeconds ?? 30}s`,
    '-s',
    scriptPath,
  ];
  for (const [name, value] of Object.entries(options.headers ?? {}))
    args.push('-H', `${name}: ${value}`);
  args.push(options.url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', code => {
      const line = out.split('\n').find(l => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) {
        reject(new Error(`wrk failed (exit ${code}): ${out}`));
        return;
      }
      const raw = JSON.parse(line.slice('RESULT '.length)) as {
        requests: number;
        durationUs: number;
        bytes: number;
        errors: number;
        p50Us: number;
        p99Us: number;
      };
      const seconds = raw.durationUs / 1e6;
      resolve({
        requests: raw.requests,
        seconds,
        requestsPerSecond: raw.requests / seconds,
        p50Ms: raw.p50Us < 0 ? undefined : raw.p50Us / 1000,
        p99Ms: raw.p99Us < 0 ? undefined : raw.p99Us / 1000,
        bytes: raw.bytes,
        errors: raw.errors,
      });
    });
  });
}
