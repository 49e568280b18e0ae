/**
 * Hostile configuration input through the built command, as a person would run it: each gives
 * one located line on stderr and status 2, with no stack trace, within 2 s and with the heap
 * capped at 200 MB (`--max-old-space-size=200`; the peak resident size is asserted too).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fastestRun } from '../support/timing';

const ROOT = resolve(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const MB = 1024 * 1024;
/**
 * Prints the process's peak resident size (kB) as the last line of stderr: VmHWM, which, unlike
 * getrusage's maxRSS, starts afresh at exec instead of keeping the peak of the forking test runner.
 */
const REPORT_PEAK = `data:text/javascript,${encodeURIComponent(
  "import { readFileSync } from 'node:fs';" +
    "process.on('exit', () => process.stderr.write('peak ' + /VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1] + '\\n'));"
)}`;

interface Outcome {
  code: number | null;
  stdout: string;
  /** stderr without the peak line. */
  stderr: string;
  /** Peak resident size in MB. */
  peakMb: number;
  elapsedMs: number;
}

/**
 * Runs the built command with the heap capped at 200 MB (at most 20 s). `stdin`, when given, is
 * written until the command stops reading it.
 */
function runCapped(
  args: string[],
  stdin?: { chunk: Buffer; count: number }
): Promise<Outcome> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=200', '--import', REPORT_PEAK, MAIN, ...args],
      {
        cwd: ROOT,
        timeout: 20_000,
        stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      }
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (stdin !== undefined) {
      // The command stops reading at its cap: writing then fails with EPIPE, as `cat` would.
      child.stdin!.on('error', () => undefined);
      let written = 0;
      const more = (): void => {
        while (written < stdin.count) {
          written++;
          if (!child.stdin!.write(stdin.chunk)) {
            child.stdin!.once('drain', more);
            return;
          }
        }
        child.stdin!.end();
      };
      more();
    }
    child.on('error', fail);
    child.on('close', code => {
      const elapsedMs = performance.now() - started;
      const peak = /peak (\d+)\n$/.exec(stderr);
      done({
        code,
        stdout,
        stderr: peak === null ? stderr : stderr.slice(0, peak.index),
        peakMb: peak === null ? NaN : Number(peak[1]) / 1024,
        elapsedMs,
      });
    });
  });
}

/**
 * How long the command takes to start and refuse a one-line configuration, measured in the same
 * run: the 2 s bound is on the work a hostile input adds, not on Node's start-up on a busy machine.
 */
let startupMs = 0;
/** The most a hostile input may add to {@link startupMs}. */
const BOUND_MS = 2000;

/**
 * {@link runCapped}, run again while it took {@link BOUND_MS} beyond start-up (three runs at
 * most): the fastest. A load spike slows one start-up; a hostile input costs its time every run.
 */
function runBounded(
  args: string[],
  stdin?: { chunk: Buffer; count: number }
): Promise<Outcome> {
  return fastestRun(
    startupMs + BOUND_MS,
    () => runCapped(args, stdin),
    outcome => outcome.elapsedMs
  );
}

/** Asserts the one-line error, status 2, no stack trace, 2 s beyond start-up and 200 MB. */
function expectBoundedError(outcome: Outcome, message: string): void {
  expect(outcome.stderr).toBe(`legacy-metrics-api: ${message}\n`);
  expect(outcome.stdout).toBe('');
  expect(outcome.code).toBe(2);
  expect(outcome.elapsedMs - startupMs).toBeLessThan(BOUND_MS);
  expect(outcome.peakMb).toBeLessThan(200);
}

const TOML_GROUP = `[[listen.http]]
  port = 8088
  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/api"
`;

/** A term file whose one service_api group has `options`. */
function termFile(options: string): string {
  return `{listen, [\n  {8088, http_listener, [{modules, [{"_", "/api", service_api, [${options}]}]}]}\n]}.\n`;
}

const DEPRECATION_KEYS =
  'one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts';
const LAST_INSTANT = '+275760-09-13T00:00:00Z';

describe('check-config and demo with hostile configuration input', () => {
  let dir: string;
  /** Writes `text` to a file of the test's directory and returns its path. */
  const file = async (name: string, text: string | Buffer): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olma-bounded-'));
    const baseline = await runCapped([
      'check-config',
      await file('empty.toml', ''),
    ]);
    expect(baseline.code).toBe(2);
    startupMs = baseline.elapsedMs;
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('should refuse a brownout ending after the year 275760 in TOML, from check-config and from demo', async () => {
    const path = await file(
      'brownout.toml',
      `${TOML_GROUP}    [listen.http.handlers.service_api.deprecation]
      since = 2026-01-01
      [[listen.http.handlers.service_api.deprecation.brownouts]]
        start = 9999-12-31T00:00:00Z
        duration = "P100000000D"
`
    );
    const message = `${path}: listen.http[0].handlers.service_api[0].deprecation.brownouts[0].duration: found "P100000000D", expected a duration that ends the window by ${LAST_INSTANT}, the latest instant a date can hold`;
    expectBoundedError(await runBounded(['check-config', path]), message);
    expectBoundedError(
      await runBounded(['demo', '--config', path, '--no-prometheus']),
      message
    );
  });

  it('should refuse a brownout ending after the year 275760 in the term form, at its line and column', async () => {
    const path = await file(
      'brownout.cfg',
      termFile(
        '{deprecation, [{since, "2026-01-01"},\n    {brownouts, [[{start, "9999-12-31"}, {duration, "P100000000D"}]]}]}'
      )
    );
    expectBoundedError(
      await runBounded(['check-config', path]),
      `${path}: line 3, column 53: found "P100000000D" for deprecation brownouts[0].duration, expected a duration that ends the window by ${LAST_INSTANT}, the latest instant a date can hold`
    );
  });

  it('should refuse a 1 MB unknown key without comparing it to every name', async () => {
    const key = 'k'.repeat(MB);
    const path = await file('key.toml', `${TOML_GROUP}    ${key} = 1\n`);
    expectBoundedError(
      await runBounded(['check-config', path]),
      `${path}: listen.http[0].handlers.service_api[0].${'k'.repeat(59)}…: found an unknown key, expected one of host, path, handlers, variant, deprecation`
    );
  });

  it('should refuse a 300 kB based integer at once', async () => {
    const path = await file(
      'based.cfg',
      `{listen, [\n  {36#${'z'.repeat(300_000)}, http_listener, [{modules, [{"_", "/api", service_api}]}]}\n]}.\n`
    );
    expectBoundedError(
      await runBounded(['check-config', path]),
      `${path}: line 2, column 4: found a number of more than 1000 digits, expected at most 1000 digits`
    );
  });

  it('should refuse a 50 MB file with a term string in it, reading no more than the cap', async () => {
    const path = await file(
      'string.cfg',
      Buffer.concat([
        Buffer.from('{motd, "'),
        Buffer.alloc(50 * MB, 'a'),
        Buffer.from('"}.\n'),
      ])
    );
    expectBoundedError(
      await runBounded(['check-config', path]),
      `${path}: found more than 4 MiB, expected a configuration of at most 4 MiB (4194304 bytes)`
    );
  });

  it('should stop reading standard input at the cap when 600 MB arrive', async () => {
    const outcome = await runBounded(['check-config', '-'], {
      chunk: Buffer.alloc(MB, ' '),
      count: 600,
    });
    expectBoundedError(
      outcome,
      '<stdin>: found more than 4 MiB, expected a configuration of at most 4 MiB (4194304 bytes)'
    );
  });

  it('should refuse a __proto__ table inside deprecation as an unknown key', async () => {
    const path = await file(
      'proto.toml',
      `${TOML_GROUP}    [listen.http.handlers.service_api.deprecation]
      since = 2026-01-01
      [listen.http.handlers.service_api.deprecation.__proto__]
        sunset = 2020-01-01
`
    );
    expectBoundedError(
      await runBounded(['check-config', path]),
      `${path}: listen.http[0].handlers.service_api[0].deprecation.__proto__: found an unknown key, expected ${DEPRECATION_KEYS}`
    );
  });

  it('should refuse a first {toString, 1} as an unknown option, not as a second one', async () => {
    const path = await file(
      'tostring.cfg',
      termFile('{deprecation, [{toString, 1}, {since, "2026-01-01"}]}')
    );
    expectBoundedError(
      await runBounded(['check-config', path]),
      `${path}: line 2, column 80: found unknown option toString in deprecation, expected ${DEPRECATION_KEYS}`
    );
  });

  it('should take the years 0000 to 0099 literally', async () => {
    const path = await file(
      'years.toml',
      `${TOML_GROUP}    [listen.http.handlers.service_api.deprecation]
      since = "0000-02-29"
      sunset = "0099-12-31"
`
    );
    const outcome = await runCapped(['check-config', path]);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(
      '    deprecation     since 0000-02-29T00:00:00Z (header Deprecation: @-62162121600)\n' +
        '    sunset          0099-12-31T00:00:00Z (announced only: the API keeps answering)\n'
    );
  });
});
