import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** How to install the real clients these tests drive (Debian 12, as root). */
export const INSTALL_HINT = {
  collectd:
    'apt-get update && apt-get install -y collectd-core libyajl2 libcurl3-gnutls',
  prometheus: 'apt-get update && apt-get install -y prometheus',
} as const;

/** Where Debian installs daemons, which a non-login PATH may lack. */
const SYSTEM_DIRECTORIES = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/**
 * The absolute path of `command`, from PATH or the system directories. Fails, with the command
 * that installs it, when it is not there: a missing client must fail the suite, not skip it,
 * since a skipped real-client test proves nothing.
 */
export function requireCommand(command: string, install: string): string {
  const directories = [
    ...(process.env.PATH ?? '').split(delimiter).filter(d => d !== ''),
    ...SYSTEM_DIRECTORIES,
  ];
  for (const directory of directories) {
    const candidate = join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  throw new Error(`${command} is not installed; install it with: ${install}`);
}

/** Fails when a shared library that `file` links cannot be found (curl_json's are only "Suggests"). */
export function requireLinkedLibraries(file: string, install: string): void {
  const ldd = spawnSync('ldd', [file], { encoding: 'utf8' });
  if (ldd.status !== 0)
    throw new Error(
      `${file} is missing or unreadable (${ldd.stderr.trim()}); install it with: ${install}`
    );
  const missing = ldd.stdout
    .split('\n')
    .filter(line => line.includes('not found'));
  if (missing.length > 0) {
    throw new Error(
      `${file} cannot load ${missing.map(l => l.trim().split(' ')[0]).join(', ')}; install with: ${install}`
    );
  }
}

/** A fresh temporary directory, and a function that removes it. */
export function temporaryDirectory(prefix: string): {
  path: string;
  remove(): void;
} {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A TCP port free on 127.0.0.1 right now, for a process that must be told its port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port =
        typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A child process whose output is kept, to explain a failure. */
export interface Tracked {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Whether the process has exited. */
  exited(): boolean;
}

/** Starts `command` without a shell, so that its pid is the process to kill. */
export function start(
  command: string,
  args: readonly string[],
  cwd?: string
): Tracked {
  const child = spawn(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.on('exit', () => (exited = true));
  child.on('error', error => {
    output += `\n${String(error)}`;
    exited = true;
  });
  return { child, output: () => output, exited: () => exited };
}

/** Stops a tracked process by its pid: SIGTERM, then SIGKILL if it has not exited in time. */
export async function stop(
  tracked: Tracked | undefined,
  graceMs = 3_000
): Promise<void> {
  if (
    tracked === undefined ||
    tracked.exited() ||
    tracked.child.pid === undefined
  )
    return;
  const pid = tracked.child.pid;
  const exit = new Promise<void>(resolve =>
    tracked.child.once('exit', () => resolve())
  );
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch {
      // It exited meanwhile.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => {
    if (!tracked.exited()) signal('SIGKILL');
  }, graceMs);
  await exit;
  clearTimeout(timer);
}

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  explain: () => string = () => ''
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause =
        lastError === undefined ? '' : ` (last error: ${String(lastError)})`;
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${cause}\n${explain()}`
      );
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}
