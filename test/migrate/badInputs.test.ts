/**
 * Inputs a person gets wrong: each gives one line on stderr naming the place, and exit status 2,
 * never a stack trace. The built command runs as a child process, as a person runs it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, temporaryDirectory } from '../realClients/support';
import { runBuilt } from './liveDemo';

const GOOD = [
  'Interval 1',
  '<Plugin curl_json>',
  '  <URL "http://127.0.0.1:8088/api/metrics/host_type/localhost">',
  '    <Key "metrics/*/count">',
  '      Type "derive"',
  '    </Key>',
  '  </URL>',
  '</Plugin>',
  '',
].join('\n');

describe('bad inputs to migrate and compare', () => {
  const dir = temporaryDirectory('migrate-bad-');
  let closedPort = 0;

  beforeAll(async () => {
    writeFileSync(join(dir.path, 'good.conf'), GOOD);
    // An unclosed block: </URL> and </Plugin> never come.
    writeFileSync(
      join(dir.path, 'unclosed.conf'),
      GOOD.split('\n').slice(0, 6).join('\n') + '\n'
    );
    // Fixed bytes, so that a failure can be replayed: random binary data with NULs in it.
    const garbage = randomBytes(512);
    garbage[100] = 0;
    writeFileSync(join(dir.path, 'garbage.conf'), garbage);
    mkdirSync(join(dir.path, 'conf.d'));
    writeFileSync(join(dir.path, 'zero.conf'), `${GOOD}Include "/dev/zero"\n`);
    writeFileSync(
      join(dir.path, 'nested.conf'),
      '<A>\n'.repeat(3000) + '</A>\n'.repeat(3000)
    );
    closedPort = await freePort();
  });

  afterAll(() => dir.remove());

  it.each([
    [
      'a missing file',
      () => ['migrate', join(dir.path, 'missing.conf')],
      /missing\.conf: cannot read it \(ENOENT\), expected a collectd configuration file$/,
    ],
    [
      'a directory',
      () => ['migrate', join(dir.path, 'conf.d')],
      /conf\.d: found a directory, expected a collectd configuration file$/,
    ],
    [
      'binary garbage',
      () => ['migrate', join(dir.path, 'garbage.conf')],
      /garbage\.conf: line \d+: found .+, expected .+$/,
    ],
    [
      'an unclosed block',
      () => ['migrate', join(dir.path, 'unclosed.conf')],
      /unclosed\.conf: line 7: found the end of the file, expected <\/URL> to close the block opened at line 3$/,
    ],
    [
      'an Include of /dev/zero',
      () => ['migrate', join(dir.path, 'zero.conf')],
      /zero\.conf: line 9: found a character device at \/dev\/zero, expected a collectd configuration file$/,
    ],
    [
      '3,000 nested blocks',
      () => ['migrate', join(dir.path, 'nested.conf')],
      /nested\.conf: line 101: found "A", expected at most 100 blocks nested in one another$/,
    ],
    [
      'an unreachable --legacy',
      () => [
        'migrate',
        join(dir.path, 'good.conf'),
        '--legacy',
        `http://127.0.0.1:${closedPort}/api`,
      ],
      /http:\/\/127\.0\.0\.1:(\d+)\/api\/metrics: cannot connect \(ECONNREFUSED\)$/,
    ],
    [
      'an unreachable --server (the alias of --legacy)',
      () => [
        'compare',
        '--server',
        `http://127.0.0.1:${closedPort}/api`,
        '--prometheus',
        `http://127.0.0.1:${closedPort}/metrics`,
      ],
      /http:\/\/127\.0\.0\.1:(\d+)\/api\/metrics: cannot connect \(ECONNREFUSED\)$/,
    ],
    [
      '--legacy and --server naming two URLs',
      () => [
        'migrate',
        join(dir.path, 'good.conf'),
        '--legacy',
        'http://127.0.0.1:1/api',
        '--server',
        'http://127.0.0.1:2/api',
      ],
      /migrate: found --legacy "http:\/\/127\.0\.0\.1:1\/api" and --server "http:\/\/127\.0\.0\.1:2\/api", expected one legacy API URL \(--server is another name for --legacy\)$/,
    ],
    [
      'an unknown option',
      () => ['migrate', join(dir.path, 'good.conf'), '--serve', 'x'],
      /migrate: Unknown option '--serve'/,
    ],
    [
      'compare without --prometheus',
      () => ['compare', '--legacy', 'http://127.0.0.1:1/api'],
      /compare: found no --prometheus, expected --prometheus URL/,
    ],
    [
      'compare with an unreachable legacy API',
      () => [
        'compare',
        '--legacy',
        `http://127.0.0.1:${closedPort}/api`,
        '--prometheus',
        `http://127.0.0.1:${closedPort}/metrics`,
      ],
      /cannot connect \(ECONNREFUSED\)$/,
    ],
  ])(
    'should give one located line and exit 2 for %s',
    async (_what, args, message) => {
      const result = await runBuilt(args());
      const lines = result.stderr.split('\n').filter(line => line !== '');
      expect({
        code: result.code,
        stdout: result.stdout,
        lines: lines.length,
      }).toEqual({ code: 2, stdout: '', lines: 1 });
      expect(lines[0]).toMatch(/^legacy-metrics-api: /);
      expect(lines[0]).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
    30_000
  );
});

describe('migrate without --server and --out', () => {
  it('should print the three files under header lines and say that the result is partial', async () => {
    const result = await runBuilt(['migrate', 'examples/collectd.conf']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    const headers = result.stdout
      .split('\n')
      .filter(line => line.startsWith('==> '));
    expect(headers).toEqual([
      '==> prometheus.yml <==',
      '==> rules.yml <==',
      '==> report.txt <==',
    ]);
    expect(result.stdout).toContain('[partial] No --legacy');
    expect(result.stdout).toContain('record: legacy:sessionCount:value');
    expect(result.stdout).toContain('- 127.0.0.1:9464');
  }, 30_000);
});

describe('--help of migrate and compare', () => {
  it.each([
    [
      'migrate',
      'Usage: legacy-metrics-api migrate COLLECTD_CONF [--legacy URL] [--prometheus URL] [--out DIR]',
    ],
    [
      'compare',
      'Usage: legacy-metrics-api compare --legacy URL --prometheus URL [--host-type NAME …] [--json] [--quiet]',
    ],
  ])(
    'should print the usage of %s and exit 0',
    async (command, usage) => {
      const result = await runBuilt([command, '--help']);
      expect({
        code: result.code,
        stderr: result.stderr,
        first: result.stdout.split('\n')[0],
      }).toEqual({
        code: 0,
        stderr: '',
        first: usage,
      });
    },
    30_000
  );

  it('should list both commands in the top-level help', async () => {
    const result = await runBuilt(['--help']);
    expect(result.stdout).toMatch(/^ {2}migrate COLLECTD_CONF$/m);
    expect(result.stdout).toMatch(
      /^ {2}compare --legacy URL --prometheus URL$/m
    );
  }, 30_000);
});
