/**
 * The collectd configuration reader against collectd itself: what `collectd -T -C FILE` parses
 * must parse here, what it rejects as a syntax error must be a located ConfigError here.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ConfigError } from '../../src/errors';
import {
  MAX_BLOCK_DEPTH,
  MAX_INCLUDE_DEPTH,
  parseCollectdConfig,
  readCollectdConfig,
} from '../../src/migrate/collectdConfig';
import { MAX_COLLECTD_FILE_BYTES } from '../../src/migrate/collectdFile';
import { readCurlJsonPoller } from '../../src/migrate/curlJsonPoller';
import {
  INSTALL_HINT,
  describeWithClients,
  freePort,
  requireCommand,
  temporaryDirectory,
} from '../realClients/support';
import { seededRandom } from '../support/random';

const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(__dirname, 'fixtures');
const SYNTAX_ERROR = /Parse error in file|yyparse returned error/;
/** The demo's legacy API in the fixtures' URLs. */
const DEMO_PORT = /(127\.0\.0\.1|localhost):8088\//g;

/** collectd's verdict on a file's syntax: it reads the file and, if it parses, runs each read once. */
function collectdAccepts(collectd: string, file: string, cwd: string): boolean {
  const run = spawnSync(collectd, ['-T', '-C', file], {
    cwd,
    encoding: 'latin1',
    timeout: 20_000,
  });
  if (run.error !== undefined) throw run.error;
  return !SYNTAX_ERROR.test(`${run.stdout}${run.stderr}`);
}

function ours(text: string): boolean {
  try {
    parseCollectdConfig(text, 'generated.conf');
    return true;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return false;
  }
}

const FRAGMENTS = [
  'Interval',
  'Hostname',
  'Plugin',
  'URL',
  ' ',
  '\t',
  '10',
  '1.5',
  '0x1f',
  '-3',
  'true',
  'off',
  '127.0.0.1',
  '"a b"',
  '"x\\"y"',
  '"ml\\\n   z"',
  '<',
  '>',
  '/',
  '\n',
  '\r\n',
  '# note',
  '\\\n',
  '.',
  ':',
];

describe('parseCollectdConfig', () => {
  it('should read options, blocks, quoting and continuations as collectd does', () => {
    const items = parseCollectdConfig(
      [
        'Hostname "a\\"b\\\\c" # comment',
        'Interval \\',
        '  2.5',
        'FQDNLookup false',
        '<Plugin curl_json>',
        '  <URL "http://127.0.0.1:8088/api/metrics/host_type/test%20type">',
        '    Instance "long\\',
        '      name"',
        '  </URL>',
        '</Plugin>',
        '',
      ].join('\n'),
      'x.conf'
    );
    expect(items.map(i => [i.key, i.values, i.line])).toEqual([
      ['Hostname', ['a"b\\c'], 1],
      ['Interval', [2.5], 2],
      ['FQDNLookup', [false], 4],
      ['Plugin', ['curl_json'], 5],
    ]);
    const url = items[3]!.children[0]!;
    expect([url.key, url.values, url.children[0]!.values]).toEqual([
      'URL',
      ['http://127.0.0.1:8088/api/metrics/host_type/test%20type'],
      ['longname'],
    ]);
  });

  it.each([
    [
      'Interval 10',
      'x.conf: line 1: found the end of the file, expected the end of the line',
    ],
    [
      '<Plugin curl_json>\n  Interval 1\n',
      'x.conf: line 3: found the end of the file, expected </Plugin> to close the block opened at line 1',
    ],
    [
      '<A>\n</B>\n',
      'x.conf: line 2: found "B", expected </A> to close the block opened at line 1',
    ],
    [
      '</Plugin>\n',
      'x.conf: line 1: found "Plugin", expected no closing tag: no block is open',
    ],
    [
      'Interval\n',
      'x.conf: line 1: found the end of the line, expected a value',
    ],
  ])('should reject %j with a located message', (text, message) => {
    expect(() => parseCollectdConfig(text, 'x.conf')).toThrow(message);
  });
});

describe('readCollectdConfig', () => {
  it('should follow Include with its Filter, next to the including file', () => {
    const { items, missingIncludes } = readCollectdConfig(
      join(FIXTURES, 'original-documentation.conf')
    );
    expect(missingIncludes).toEqual([]);
    expect(
      items.filter(i => i.key === 'LoadPlugin').map(i => i.values[0])
    ).toEqual(['load', 'uptime', 'curl_json']);
  });

  it('should expand a wildcard in an Include path, as collectd does', () => {
    const dir = temporaryDirectory('collectd-include-');
    try {
      mkdirSync(join(dir.path, 'collectd.d'));
      writeFileSync(
        join(dir.path, 'collectd.d', 'b.conf'),
        'LoadPlugin load\n'
      );
      writeFileSync(join(dir.path, 'collectd.d', 'a.conf'), 'LoadPlugin cpu\n');
      writeFileSync(join(dir.path, 'collectd.d', 'notes.txt'), 'not read\n');
      const main = join(dir.path, 'collectd.conf');
      writeFileSync(
        main,
        `Include "${join(dir.path, 'collectd.d')}/*.conf"\nInclude "missing.conf"\n`
      );
      const { items, missingIncludes } = readCollectdConfig(main);
      expect(items.map(i => i.values[0])).toEqual(['cpu', 'load']);
      expect(missingIncludes).toEqual([`${main}:2 missing.conf`]);
    } finally {
      dir.remove();
    }
  });

  it('should read the curl_json URLs, keys and intervals', () => {
    const poller = readCurlJsonPoller(
      join(FIXTURES, 'histograms-and-long-keys.conf')
    );
    expect({
      interval: poller.intervalS,
      maxRead: poller.maxReadIntervalS,
      urls: poller.urls.map(u => [u.url, u.instance, u.keys.length]),
    }).toEqual({
      interval: 1,
      maxRead: 4,
      urls: [
        ['http://127.0.0.1:8088/api/metrics/global', 'global', 5],
        [
          'http://127.0.0.1:8088/api/metrics/host_type/test_type',
          'test_type',
          2,
        ],
      ],
    });
  });
});

describeWithClients('collectd')('collectd as the oracle', () => {
  let collectd = 'collectd';
  const dir = temporaryDirectory('collectd-oracle-');

  beforeAll(() => {
    collectd = requireCommand('collectd', INSTALL_HINT.collectd);
  });

  afterAll(() => dir.remove());

  it('should accept every fixture and example that collectd accepts', async () => {
    const files = [
      join(ROOT, 'examples', 'collectd.conf'),
      ...readdirSync(FIXTURES)
        .filter(name => name.endsWith('.conf'))
        .map(name => join(FIXTURES, name)),
    ];
    expect(files.length).toBeGreaterThanOrEqual(4);
    // collectd -T runs each read once: pointed at a port no one listens on, each fails at once,
    // whatever listens on the demo's 8088 (a busy port that never answers would hold each read).
    const closedPort = await freePort();
    const copies = join(dir.path, 'fixtures');
    cpSync(join(FIXTURES, 'conf.d'), join(copies, 'conf.d'), {
      recursive: true,
    });
    for (const file of files) {
      const copy = join(copies, basename(file));
      const text = readFileSync(file, 'utf8');
      expect(text).toContain(':8088/');
      writeFileSync(copy, text.replace(DEMO_PORT, `$1:${closedPort}/`));
      expect({
        file,
        collectd: collectdAccepts(collectd, copy, copies),
      }).toEqual({
        file,
        collectd: true,
      });
      expect(() => readCurlJsonPoller(file)).not.toThrow();
    }
  }, 60_000);

  it('should give the same verdict as collectd on generated files', () => {
    const verdicts: {
      seed: number;
      text: string;
      collectd: boolean;
      ours: boolean;
    }[] = [];
    for (let seed = 0; seed < 200; seed++) {
      const next = seededRandom(seed);
      const parts: string[] = [];
      const length = 1 + Math.floor(next() * 14);
      for (let i = 0; i < length; i++)
        parts.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!);
      // Half of the cases end with a newline, as most files do.
      const text = parts.join('') + (next() < 0.5 ? '\n' : '');
      const file = join(dir.path, `case-${seed}.conf`);
      writeFileSync(file, text, 'latin1');
      verdicts.push({
        seed,
        text,
        collectd: collectdAccepts(collectd, file, dir.path),
        ours: ours(text),
      });
    }
    expect(verdicts.filter(v => v.collectd !== v.ours)).toEqual([]);
    // The generator must exercise both verdicts, or the comparison proves little.
    expect(new Set(verdicts.map(v => v.collectd))).toEqual(
      new Set([true, false])
    );
  }, 120_000);
});

describe('readCollectdConfig on hostile files', () => {
  const dir = temporaryDirectory('collectd-hostile-');

  afterAll(() => dir.remove());

  /** Reads `text` as a top-level file; the error message, or undefined; and how long it took. */
  function read(name: string, text: string): { message?: string; ms: number } {
    const file = join(dir.path, name);
    writeFileSync(file, text);
    const started = performance.now();
    try {
      readCollectdConfig(file);
      return { ms: performance.now() - started };
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return {
        message: (error as Error).message,
        ms: performance.now() - started,
      };
    }
  }

  it('should refuse an Include of /dev/zero at once, naming the Include line', () => {
    const file = join(dir.path, 'zero.conf');
    expect(read('zero.conf', 'Interval 10\nInclude "/dev/zero"\n')).toEqual({
      message: `${file}: line 2: found a character device at /dev/zero, expected a collectd configuration file`,
      ms: expect.any(Number),
    });
    expect(read('zero.conf', 'Include "/dev/zero"\n').ms).toBeLessThan(2000);
  });

  it('should refuse a named pipe without waiting for a writer', () => {
    const fifo = join(dir.path, 'pipe.conf');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) return; // no mkfifo here: nothing to prove
    const file = join(dir.path, 'fifo.conf');
    const { message, ms } = read('fifo.conf', `Include "${fifo}"\n`);
    expect(message).toBe(
      `${file}: line 1: found a named pipe at ${fifo}, expected a collectd configuration file`
    );
    expect(ms).toBeLessThan(2000);
  });

  it('should refuse a file over the size cap, included or not', () => {
    const big = join(dir.path, 'big.conf');
    writeFileSync(big, `# ${'x'.repeat(MAX_COLLECTD_FILE_BYTES)}\n`);
    const file = join(dir.path, 'includes-big.conf');
    expect(read('includes-big.conf', `Include "${big}"\n`).message).toBe(
      `${file}: line 1: found ${MAX_COLLECTD_FILE_BYTES + 3} bytes in ${big}, expected a collectd configuration file of at most ${MAX_COLLECTD_FILE_BYTES} bytes`
    );
    expect(() => readCollectdConfig(big)).toThrow(
      `${big}: found ${MAX_COLLECTD_FILE_BYTES + 3} bytes, expected a collectd configuration file of at most ${MAX_COLLECTD_FILE_BYTES} bytes`
    );
  });

  it('should match a Filter of 30 * in linear time', () => {
    const include = join(dir.path, 'filtered');
    mkdirSync(include);
    // A name that a backtracking `.*a.*a…b` tries every way of splitting before failing.
    writeFileSync(join(include, 'a'.repeat(64)), 'LoadPlugin skipped\n');
    writeFileSync(join(include, `${'a'.repeat(40)}b`), 'LoadPlugin matched\n');
    const filter = `${'*a'.repeat(29)}*b`;
    const file = join(dir.path, 'filter.conf');
    writeFileSync(
      file,
      `<Include "${include}">\n  Filter "${filter}"\n</Include>\n`
    );
    const started = performance.now();
    const { items } = readCollectdConfig(file);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(items.map(item => item.values[0])).toEqual(['matched']);
  });

  it('should refuse 3,000 nested blocks with a located error', () => {
    const text = '<A>\n'.repeat(3000) + 'Interval 1\n' + '</A>\n'.repeat(3000);
    const file = join(dir.path, 'nested.conf');
    const { message, ms } = read('nested.conf', text);
    expect(message).toBe(
      `${file}: line ${MAX_BLOCK_DEPTH + 1}: found "A", expected at most ${MAX_BLOCK_DEPTH} blocks nested in one another`
    );
    expect(ms).toBeLessThan(2000);
  });

  it(`should read ${MAX_BLOCK_DEPTH} nested blocks`, () => {
    const text =
      '<A>\n'.repeat(MAX_BLOCK_DEPTH) +
      'Interval 1\n' +
      '</A>\n'.repeat(MAX_BLOCK_DEPTH);
    expect(read('deep.conf', text).message).toBeUndefined();
  });

  it(`should refuse Includes more than ${MAX_INCLUDE_DEPTH} files deep`, () => {
    for (let level = 0; level <= MAX_INCLUDE_DEPTH + 1; level++)
      writeFileSync(
        join(dir.path, `level-${level}.conf`),
        `Include "${join(dir.path, `level-${level + 1}.conf`)}"\n`
      );
    const last = join(dir.path, `level-${MAX_INCLUDE_DEPTH}.conf`);
    expect(() => readCollectdConfig(join(dir.path, 'level-0.conf'))).toThrow(
      `${last}: line 1: found Include "${join(dir.path, `level-${MAX_INCLUDE_DEPTH + 1}.conf`)}" ${MAX_INCLUDE_DEPTH + 1} files deep, expected at most ${MAX_INCLUDE_DEPTH} (collectd's limit)`
    );
  });
});
