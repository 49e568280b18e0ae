import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/runCli';
import { EXAMPLE_OUTPUTS } from './exampleOutputs';

const ROOT = resolve(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

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
      ['--version'],
      'legacy-metrics-api: unknown option "--version"; expected a command (demo, check-config, migrate, compare) or --help',
    ],
    [
      ['demo', '--port', '80'],
      'legacy-metrics-api: demo: unknown option "--port"; expected --config FILE or --help',
    ],
    [
      ['demo', 'server.toml'],
      'legacy-metrics-api: demo: unexpected argument "server.toml"; expected --config FILE or --help',
    ],
    [
      ['demo', '--config'],
      'legacy-metrics-api: demo: found --config without a file, expected --config FILE',
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
      ['check-config'],
      "legacy-metrics-api: check-config: found no FILE, expected 'legacy-metrics-api check-config FILE'",
    ],
    [
      ['check-config', 'a.toml', 'b.toml'],
      'legacy-metrics-api: check-config: unexpected argument "b.toml"; expected a single FILE',
    ],
    [
      ['check-config', '--strict', 'a.toml'],
      'legacy-metrics-api: check-config: unknown option "--strict"; expected FILE or --help',
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
    [['check-config', '--help'], 'Usage: legacy-metrics-api check-config FILE'],
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

  it('should refuse to run the demo on a configuration without a listener serving the API', async () => {
    const file = join(dir, 'none.toml');
    await writeFile(file, '[general]\n  hosts = ["localhost"]\n');
    const io = capture();
    expect(
      await runCli(['demo', '--config', file], io.write, io.writeErr)
    ).toBe(2);
    expect(io.err).toEqual([
      `legacy-metrics-api: ${file}: found no listener serving the legacy metrics API, expected an HTTP listener with a service_api handler group listing service_api_metrics`,
    ]);
  });
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
    expect(await runBuilt(['demo', '--config', file])).toEqual({
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
    expect(await runBuilt(['demo', '--config', file])).toEqual({
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
      expect(await runBuilt(['demo', '--config', file])).toEqual({
        code: 2,
        stdout: '',
        stderr: `legacy-metrics-api: ${file}: listen.http[0]: cannot listen on 127.0.0.1:${port}: EADDRINUSE\n`,
      });
    } finally {
      await new Promise(done => blocker.close(done));
    }
  });

  it('should run the demo on examples/server.toml from any working directory, serve, and exit 0 on SIGINT', async () => {
    // The default configuration is found next to the package, not in the working directory.
    const child = spawn(process.execPath, [MAIN, 'demo'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>(done =>
      child.on('exit', code => done(code))
    );
    try {
      const deadline = Date.now() + 15_000;
      while (
        !output.includes('press Ctrl-C to stop') &&
        Date.now() < deadline
      ) {
        if (child.exitCode !== null) break;
        await new Promise(done => setTimeout(done, 100));
      }
      if (output.includes('EADDRINUSE')) {
        // Another program holds the demo's fixed ports: the command must say so and exit 2.
        expect(await exited).toBe(2);
        expect(output).toMatch(
          /^legacy-metrics-api: (?:\S+server\.toml: listen\.http\[0\]: )?cannot listen on 127\.0\.0\.1:\d+/m
        );
        return;
      }
      expect(output).toContain(
        'legacy metrics API: http://127.0.0.1:8088/api/metrics (bound to 127.0.0.1:8088, Host localhost, variant host_type, max_connections 1024, no authentication)\n'
      );
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
