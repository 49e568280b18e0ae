import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** How to install the real clients these tests drive (Debian 12, as root). */
export const INSTALL_HINT = {
  collectd:
    'apt-get update && apt-get install -y collectd-core libyajl2 libcurl3-gnutls',
  prometheus: 'apt-get update && apt-get install -y prometheus',
  python3: 'apt-get update && apt-get install -y python3',
} as const;

/** Where Debian installs daemons, which a non-login PATH may lack. */
const SYSTEM_DIRECTORIES = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/** collectd's JSON poller, which links libraries that are only "Suggests" of collectd-core. */
export const CURL_JSON = '/usr/lib/collectd/curl_json.so';

/**
 * When set to `1` (as `.ci/run` does), a real-client suite whose client is missing fails instead
 * of being reported as not run, so that CI proves every client.
 */
export const REQUIRE_CLIENTS_VARIABLE = 'LEGACY_API_REQUIRE_CLIENTS';

/** The absolute path of `command` from PATH or the system directories, or undefined. */
export function findCommand(command: string): string | undefined {
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
  return undefined;
}

/** The absolute path of `command`; throws, with the command that installs it, when it is missing. */
export function requireCommand(command: string, install: string): string {
  const found = findCommand(command);
  if (found === undefined)
    throw new Error(`${command} is not installed; install it with: ${install}`);
  return found;
}

/**
 * Why `file` cannot be loaded (it is missing, or a shared library it links is), or undefined when
 * it can. Without `ldd` the libraries are not checked: collectd's own log then says what failed.
 */
export function missingLinkedLibraries(file: string): string | undefined {
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return `${file} is missing`;
  }
  const ldd = spawnSync('ldd', [file], { encoding: 'utf8' });
  if (ldd.error !== undefined || ldd.status === null) return undefined;
  if (ldd.status !== 0)
    return `${file} cannot be loaded (${`${ldd.stderr ?? ''}${ldd.stdout ?? ''}`.trim() || `ldd exited with ${ldd.status}`})`;
  const missing = (ldd.stdout ?? '')
    .split('\n')
    .filter(line => line.includes('not found'))
    .map(line => line.trim().split(' ')[0]);
  return missing.length > 0
    ? `${file} cannot load ${missing.join(', ')}`
    : undefined;
}

/** A real client a suite drives, and how to tell whether this machine has it. */
interface RealClient {
  /** Why it cannot run here, or undefined when it can. */
  missing(): string | undefined;
  readonly install: string;
}

const REAL_CLIENTS = {
  collectd: {
    missing: () =>
      findCommand('collectd') === undefined
        ? 'collectd is not installed'
        : missingLinkedLibraries(CURL_JSON),
    install: INSTALL_HINT.collectd,
  },
  prometheus: {
    missing: () =>
      findCommand('prometheus') === undefined
        ? 'prometheus is not installed'
        : undefined,
    install: INSTALL_HINT.prometheus,
  },
  promtool: {
    missing: () =>
      findCommand('promtool') === undefined
        ? 'promtool is not installed'
        : undefined,
    install: INSTALL_HINT.prometheus,
  },
  python3: {
    missing: () =>
      findCommand('python3') === undefined
        ? 'python3 is not installed'
        : undefined,
    install: INSTALL_HINT.python3,
  },
} satisfies Record<string, RealClient>;

export type RealClientName = keyof typeof REAL_CLIENTS;

/**
 * A `describe` for suites that drive `clients`: jest's own when this machine has them all.
 * Otherwise the suite is not run and says so: one line on stderr naming the client and the
 * command that installs it, and a skipped test with the same text. With
 * `LEGACY_API_REQUIRE_CLIENTS=1` it fails instead, since a real-client test that did not run
 * proves nothing.
 */
export function describeWithClients(
  ...clients: RealClientName[]
): (title: string, suite: () => void) => void {
  return (title, suite) => describeIfPresent(clients, title, suite);
}

function describeIfPresent(
  clients: readonly RealClientName[],
  title: string,
  suite: () => void
): void {
  const reasons = clients.flatMap(name => {
    let reason: string | undefined;
    try {
      reason = REAL_CLIENTS[name].missing();
    } catch (error) {
      // Detection must never be what fails: report it as the reason instead.
      reason = `${name} could not be checked (${String(error)})`;
    }
    return reason === undefined
      ? []
      : [`${reason}; install it with: ${REAL_CLIENTS[name].install}`];
  });
  if (reasons.length === 0) {
    describe(title, suite);
    return;
  }
  const message = `not run: ${title}: ${reasons.join('; ')}`;
  if (process.env[REQUIRE_CLIENTS_VARIABLE] === '1') {
    describe(title, () => {
      it(`should find its real clients (${REQUIRE_CLIENTS_VARIABLE}=1)`, () => {
        throw new Error(message);
      });
    });
    return;
  }
  process.stderr.write(`${message}\n`);
  describe(title, () => {
    it.skip(message, () => undefined);
  });
}

/** A fresh temporary directory, and a function that removes it. */
export function temporaryDirectory(prefix: string): {
  path: string;
  remove(): void;
} {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export { freePort } from '../support/http';

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

export { waitUntil } from '../support/waitUntil';

/** The SDK's default explicit bucket bounds, which the Prometheus exposition's histograms have. */
export const SDK_DEFAULT_BOUNDS = [
  0,
  5,
  10,
  25,
  50,
  75,
  100,
  250,
  500,
  750,
  1000,
  2500,
  5000,
  7500,
  10000,
  Infinity,
];

/** The index of the default bucket that holds `value`. */
export function bucketIndex(value: number): number {
  return SDK_DEFAULT_BOUNDS.findIndex(bound => value <= bound);
}
