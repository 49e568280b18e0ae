import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/runCli';
import { EXAMPLE_OUTPUTS } from './exampleOutputs';

const ROOT = resolve(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    write: (line: string) => out.push(line),
    writeErr: (line: string) => err.push(line),
  };
}

/** Runs the built command to its end (at most 20 s), as a person would from `cwd`. */
function runBuilt(
  args: string[],
  cwd = ROOT
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise(done => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { cwd, timeout: 20_000, encoding: 'utf8' },
      (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr })
    );
  });
}

/** A server on a free loopback port, keeping it busy. */
async function occupyPort(): Promise<Server> {
  const server = createServer();
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done));
  return server;
}

const LISTENER = (port: number | string): string => `
[[listen.http]]
  port = ${port}
  [[listen.http.handlers.service_api]]
    host = "localhost"
    path = "/api"
`;

describe('runCli', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olma-cli-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('should print the usage on --help and exit 0', async () => {
    const io = capture();
    expect(await runCli(['--help'], io.write, io.writeErr)).toBe(0);
    expect(io.out.join('\n')).toContain(
      'Usage: legacy-metrics-api <command> [options]'
    );
    expect(io.out.join('\n')).toContain('check-config FILE');
  });

  it('should print the version of package.json on --version and exit 0', async () => {
    const io = capture();
    expect(await runCli(['--version'], io.write, io.writeErr)).toBe(0);
    expect(io.out).toEqual([VERSION]);
    expect(io.err).toEqual([]);
  });

  it.each([
    [['migrate', 'a.conf', '--serve', 'x'], 'migrate'],
    [['compare', '--jsn'], 'compare'],
  ])(
    "should say an unknown option of %j in parseArgs' words, pointing to --help",
    async (argv, command) => {
      const io = capture();
      expect(await runCli(argv, io.write, io.writeErr)).toBe(2);
      expect(io.err).toEqual([
        expect.stringMatching(
          new RegExp(
            `^legacy-metrics-api: ${command}: Unknown option '${argv.find(a => a.startsWith('--'))}'.*; see 'legacy-metrics-api ${command} --help'$`
          )
        ),
      ]);
    }
  );

  it('should print the usage to stderr and exit 2 without a command', async () => {
    const io = capture();
    expect(await runCli([], io.write, io.writeErr)).toBe(2);
    expect(io.err.join('\n')).toContain('Usage: legacy-metrics-api');
  });

  it.each([
    [
      ['serve'],
      'legacy-metrics-api: unknown command "serve"; expected one of: demo, check-config, migrate, compare',
    ],
    [
      ['--verbose'],
      'legacy-metrics-api: unknown option "--verbose"; expected a command (demo, check-config, migrate, compare), --version or --help',
    ],
    [
      ['demo', '--port', '80'],
      'legacy-metrics-api: demo: unknown option "--port"; expected --config FILE, --prometheus-port PORT, --prometheus-host ADDRESS, --no-prometheus, --workers N or --help',
    ],
    [
      ['demo', 'server.toml'],
      'legacy-metrics-api: demo: unexpected argument "server.toml"; expected --config FILE, --prometheus-port PORT, --prometheus-host ADDRESS, --no-prometheus, --workers N or --help',
    ],
    [
      ['demo', '--config'],
      'legacy-metrics-api: demo: found --config without a value, expected --config FILE',
    ],
    [
      ['demo', '--config', '--no-prometheus'],
      'legacy-metrics-api: demo: found --config without a value, expected --config FILE',
    ],
    [
      ['demo', '--config='],
      'legacy-metrics-api: demo: found an empty --config, expected --config FILE',
    ],
    [
      ['demo', '--config', 'a.toml', '--config=b.toml'],
      'legacy-metrics-api: demo: found --config a second time ("b.toml"), expected it once',
    ],
    [
      ['demo', '--prometheus-port', '65536'],
      'legacy-metrics-api: demo: found --prometheus-port "65536", expected an integer from 0 to 65535',
    ],
    [
      ['demo', '--prometheus-port=-1'],
      'legacy-metrics-api: demo: found --prometheus-port "-1", expected an integer from 0 to 65535',
    ],
    [
      ['demo', '--no-prometheus', '--prometheus-port', '9000'],
      'legacy-metrics-api: demo: found --no-prometheus with --prometheus-port, expected one or the other',
    ],
    [
      ['demo', '--no-prometheus=yes'],
      'legacy-metrics-api: demo: found --no-prometheus=yes, expected --no-prometheus without a value',
    ],
    [
      ['check-config'],
      "legacy-metrics-api: check-config: found no FILE, expected 'legacy-metrics-api check-config FILE' (- for standard input)",
    ],
    [
      ['check-config', 'a.toml', 'b.toml'],
      'legacy-metrics-api: check-config: unexpected argument "b.toml"; expected a single FILE',
    ],
    [
      ['check-config', '--strict', 'a.toml'],
      'legacy-metrics-api: check-config: unknown option "--strict"; expected FILE or --help',
    ],
    [
      ['migrate'],
      "legacy-metrics-api: migrate: found no COLLECTD_CONF, expected 'legacy-metrics-api migrate COLLECTD_CONF'",
    ],
    [
      ['migrate', 'a.conf', 'b.conf'],
      'legacy-metrics-api: migrate: unexpected argument "b.conf"; expected a single COLLECTD_CONF',
    ],
    [
      ['migrate', 'a.conf', '--out='],
      'legacy-metrics-api: migrate: found an empty --out, expected a value',
    ],
    [
      ['compare', '--prometheus', 'http://127.0.0.1:9464/metrics'],
      'legacy-metrics-api: compare: found no --legacy, expected --legacy URL (e.g. http://127.0.0.1:8088/api)',
    ],
    [
      ['help', 'serve'],
      'legacy-metrics-api: help: unknown command "serve"; expected one of: demo, check-config, migrate, compare',
    ],
    [
      ['help', 'migrate', 'compare'],
      'legacy-metrics-api: help: unexpected argument "compare"; expected a single COMMAND',
    ],
  ])(
    'should reject %j with one line naming what was found and exit 2',
    async (argv, message) => {
      const io = capture();
      expect(await runCli(argv, io.write, io.writeErr)).toBe(2);
      expect(io.err).toEqual([message]);
      expect(io.out).toEqual([]);
    }
  );

  it.each([
    [['demo', '--help'], 'Usage: legacy-metrics-api demo [--config FILE]'],
    [
      ['demo', '--config', 'x.toml', '-h'],
      'Usage: legacy-metrics-api demo [--config FILE]',
    ],
    [
      ['demo', '--port', '80', '--help'],
      'Usage: legacy-metrics-api demo [--config FILE]',
    ],
    [['check-config', '--help'], 'Usage: legacy-metrics-api check-config FILE'],
    [['help'], 'Usage: legacy-metrics-api <command> [options]'],
    [['help', 'demo'], 'Usage: legacy-metrics-api demo [--config FILE]'],
    [['help', 'check-config'], 'Usage: legacy-metrics-api check-config FILE'],
    [
      ['help', 'migrate'],
      'Usage: legacy-metrics-api migrate COLLECTD_CONF [--legacy URL]',
    ],
    [
      ['help', 'compare'],
      'Usage: legacy-metrics-api compare --legacy URL --prometheus URL',
    ],
  ])('should explain the command on %j', async (argv, usage) => {
    const io = capture();
    expect(await runCli(argv, io.write, io.writeErr)).toBe(0);
    expect(io.out.join('\n')).toContain(usage);
    expect(io.err).toEqual([]);
  });

  it.each(EXAMPLE_OUTPUTS)(
    'should check %s and print its listeners',
    async (file, expected) => {
      const io = capture();
      // Relative to the working directory, which is the package root under jest.
      expect(await runCli(['check-config', file], io.write, io.writeErr)).toBe(
        0
      );
      expect(io.out).toEqual(expected);
      expect(io.err).toEqual([]);
    }
  );

  it('should print a configuration error as one line and exit 2', async () => {
    const file = join(dir, 'bad.toml');
    await writeFile(file, LISTENER(70000));
    const io = capture();
    expect(await runCli(['check-config', file], io.write, io.writeErr)).toBe(2);
    expect(io.err).toEqual([
      `legacy-metrics-api: ${file}: listen.http[0].port: found 70000, expected an integer from 0 to 65535`,
    ]);
  });

  it.each([['check-config'], ['demo', '--config']])(
    'should refuse a configuration without a listener serving the API in %s, with exit 2',
    async (...command) => {
      for (const [name, text] of [
        ['none.toml', '[general]\n  hosts = ["localhost"]\n'],
        [
          'users.cfg',
          '{listen, [{0, http_listener, [{modules, [{"_", "/api", service_api, [{handlers, [service_api_users]}]}]}]}]}.\n',
        ],
      ] as const) {
        const file = join(dir, name);
        await writeFile(file, text);
        const io = capture();
        expect(await runCli([...command, file], io.write, io.writeErr)).toBe(2);
        expect(io.err).toEqual([
          `legacy-metrics-api: ${file}: found no listener serving the legacy metrics API, expected an HTTP listener with a service_api handler group listing service_api_metrics`,
        ]);
        expect(io.out).toEqual([]);
      }
    }
  );

  it('should check standard input for the file -', async () => {
    const io = capture();
    const text = await readFile(join(ROOT, 'examples', 'server.cfg'), 'utf8');
    expect(
      await runCli(['check-config', '-'], io.write, io.writeErr, () =>
        Promise.resolve(text)
      )
    ).toBe(0);
    expect(io.out).toEqual(
      EXAMPLE_OUTPUTS[1]![1].map(line =>
        line.replace('examples/server.cfg', '<stdin>')
      )
    );
  });

  it.each([
    ['package.json', undefined],
    ['settings.json', '{"listen": []}'],
    ['settings', '  {"listen": {"http": [{"port": 8088}]}}\n'],
    ['settings.cfg', '[1, 2]'],
  ])(
    'should say in one line that JSON is not a supported form (%s)',
    async (name, text) => {
      const file = text === undefined ? join(ROOT, name) : join(dir, name);
      if (text !== undefined) await writeFile(file, text);
      for (const command of [['check-config'], ['demo', '--config']]) {
        const io = capture();
        expect(await runCli([...command, file], io.write, io.writeErr)).toBe(2);
        expect(io.err).toEqual([
          `legacy-metrics-api: ${file}: found JSON, expected the TOML or Erlang-term form of the configuration (JSON is not a supported form)`,
        ]);
      }
    }
  );
});

describe('legacy-metrics-api (the built command)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olma-built-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(EXAMPLE_OUTPUTS)(
    'should check-config %s and exit 0',
    async (file, expected) => {
      expect(await runBuilt(['check-config', file])).toEqual({
        code: 0,
        stdout: `${expected.join('\n')}\n`,
        stderr: '',
      });
    }
  );

  it('should print a configuration error as one line without a stack trace and exit 2', async () => {
    const file = join(dir, 'bad.cfg');
    await writeFile(
      file,
      '{listen, [{8088, http_listener, [{num_acceptors, 0}, {modules, [{"_", "/api", service_api}]}]}]}.\n'
    );
    const expected = `legacy-metrics-api: ${file}: line 1, column 50: found 0 for num_acceptors, expected a positive integer\n`;
    expect(await runBuilt(['check-config', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: expected,
    });
    expect(
      await runBuilt(['demo', '--config', file, '--prometheus-port', '0'])
    ).toEqual({
      code: 2,
      stdout: '',
      stderr: expected,
    });
  });

  it('should report a missing file as one line and exit 2', async () => {
    const file = join(dir, 'missing.toml');
    const expected = `legacy-metrics-api: ${file}: found an unreadable file (ENOENT: no such file or directory), expected a readable configuration file\n`;
    expect(await runBuilt(['check-config', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: expected,
    });
    expect(
      await runBuilt(['demo', '--config', file, '--prometheus-port', '0'])
    ).toEqual({
      code: 2,
      stdout: '',
      stderr: expected,
    });
  });

  it('should report a port in use as one line naming the file, the listener and the address, and exit 2', async () => {
    const blocker = await occupyPort();
    const port = (blocker.address() as { port: number }).port;
    try {
      const file = join(dir, 'busy.toml');
      await writeFile(file, LISTENER(port));
      expect(
        await runBuilt(['demo', '--config', file, '--prometheus-port', '0'])
      ).toEqual({
        code: 2,
        stdout: '',
        stderr: `legacy-metrics-api: ${file}: listen.http[0]: cannot listen on 127.0.0.1:${port}: EADDRINUSE\n`,
      });
    } finally {
      await new Promise(done => blocker.close(done));
    }
  });
});
