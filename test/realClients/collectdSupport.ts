/**
 * What the collectd tests share: the poller's names, the shipped example pointed at a test
 * server, and the values its csv writer wrote.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { start, type Tracked } from './support';
export { CURL_JSON } from './support';

export const HOSTNAME = 'legacy-poller';
export const INSTANCE = 'messaging';
export const EXAMPLE = join(__dirname, '..', '..', 'examples', 'collectd.conf');
/** curl_json keys of a legacy deployment: one per line of its `<URL>` block. */
export const LEGACY_KEYS = [
  'metrics/sessionCount/value',
  'metrics/*/count',
  'metrics/*/one',
];
/** The csv writer's file name: `<type>-<key path joined with '-'>-YYYY-MM-DD`. */
export const CSV_FILE = /^([a-z]+)-(.+)-\d{4}-\d{2}-\d{2}$/;

/** The shipped example, pointed at the test's server and directory, polling every second. */
export function exampleConfig(dir: string, url: string): string {
  const text = readFileSync(EXAMPLE, 'utf8');
  const replaced = text
    .replace(/^Hostname .*$/m, `Hostname "${HOSTNAME}"`)
    .replace(/^Interval .*$/m, 'Interval 1')
    .replace(/^MaxReadInterval .*$/m, 'MaxReadInterval 1')
    .replace(
      /<URL "http:\/\/127\.0\.0\.1:8088\/api\/metrics\/host_type\/localhost">/,
      `<URL "${url}">`
    )
    .replace(/DataDir ".*"/, `DataDir "${join(dir, 'csv')}"`);
  for (const [what, before] of [
    ['Hostname', /^Hostname /m],
    ['the URL', /<URL "http:\/\/127\.0\.0\.1:8088\//],
    ['DataDir', /DataDir "/],
  ] as const) {
    if (!before.test(text))
      throw new Error(
        `examples/collectd.conf has no ${what} line to point at the test`
      );
  }
  return `BaseDir "${dir}"\n${replaced}`;
}

/** Every value collectd wrote, by `<type>:<key path>`, e.g. `absolute:metrics-xmppMessageSent-count` → [7, 7]. */
export function writtenValues(dir: string): Map<string, number[]> {
  const values = new Map<string, number[]>();
  const out = join(dir, 'csv', HOSTNAME, `curl_json-${INSTANCE}`);
  if (!existsSync(out)) return values;
  // Sorted, so that after midnight the later day's lines come last.
  for (const file of readdirSync(out).sort()) {
    const match = CSV_FILE.exec(file);
    if (match === null) continue;
    // Header `epoch,value`, then one `<epoch>,<value>` line per read.
    const lines = readFileSync(join(out, file), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    const key = `${match[1]}:${match[2]}`;
    const list = values.get(key) ?? [];
    for (const line of lines) list.push(Number(line.split(',')[1]));
    values.set(key, list);
  }
  return values;
}

/**
 * Writes `config` to `runDir/collectd.conf` and starts collectd in the foreground on it. There is
 * no separate syntax check: `collectd -t` (5.12) exits 0 without reading the file, and a file
 * collectd cannot parse makes the daemon itself exit with the parse error, which `explain`
 * shows (test/migrate/collectdConfig.test.ts holds the syntax oracle, `collectd -T`).
 * @returns the process, and what explains a failure: its output and its log file, if any
 */
export async function startCollectd(
  collectdPath: string,
  runDir: string,
  config: string
): Promise<{ collectd: Tracked; explain: () => string }> {
  mkdirSync(runDir);
  const file = join(runDir, 'collectd.conf');
  writeFileSync(file, config);
  const collectd = start(collectdPath, ['-f', '-C', file]);
  const explain = (): string => {
    const log = join(runDir, 'collectd.log');
    return `collectd output:\n${collectd.output()}\ncollectd.log:\n${existsSync(log) ? readFileSync(log, 'utf8') : '(none)'}`;
  };
  return { collectd, explain };
}
