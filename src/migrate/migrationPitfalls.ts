/**
 * What is wrong in a curl_json poller itself, whatever the server: Types that misread a key,
 * key paths collectd truncates or crashes on, no MaxReadInterval, and wildcards that read more
 * than one means.
 */
import { getOrMake } from '../getOrMake';
import type { CurlJsonKey, CurlJsonPoller } from './curlJsonPoller';
import type { Finding, Mapping } from './migrationPlan';

/** Key paths at least this long are truncated by collectd 5.12's curl_json (127-character type instance). */
export const TRUNCATED_KEY_LENGTH = 114;
/** Key paths at least this long crash collectd 5.12's curl_json on the first read. */
export const CRASHING_KEY_LENGTH = 121;

/** A place in the poller's files: `collectd.conf:12`. */
export const where = (item: { file: string; line: number }): string =>
  `${item.file}:${item.line}`;

/** The pitfalls of `poller`, given what its keys were mapped to. */
export function findPitfalls(
  poller: CurlJsonPoller,
  mappings: readonly Mapping[]
): Finding[] {
  const pitfalls: Finding[] = [];
  const seen = new Set<string>();
  const once = (id: string, finding: Finding): void => {
    if (seen.has(id)) return;
    seen.add(id);
    pitfalls.push(finding);
  };
  /** A key path collectd truncates or crashes on, named as `place` says it. */
  const longKey = (path: string, place: string): void => {
    const consequence =
      path.length >= CRASHING_KEY_LENGTH
        ? `from ${CRASHING_KEY_LENGTH} collectd 5.12's curl_json crashes on the first read`
        : `from ${TRUNCATED_KEY_LENGTH} collectd truncates it to a 127-character type instance (from 118, count and one land in the same file)`;
    once(`long:${path}`, {
      tag: 'long-key',
      text: `${place}: the key path is ${path.length} characters; ${consequence}.`,
    });
  };
  const valueWildcards = new Map<CurlJsonKey, Set<string>>();
  for (const m of mappings) {
    const type = m.key.type?.toLowerCase();
    if (type === 'absolute' && m.field === 'count')
      once(`absolute:${where(m.key)}`, {
        tag: 'absolute-count',
        text: `${where(m.key)} Key "${m.key.path}" reads the cumulative count as Type "absolute": collectd treats every reading as the increase since the last one, so writers that store rates divide the whole total by the interval, a wrong and ever-growing rate. Use Type "derive".`,
      });
    else if (type === 'absolute')
      once(`absolute:${where(m.key)}`, {
        tag: 'absolute-type',
        text: `${where(m.key)} Key "${m.key.path}" reads ${m.field} as Type "absolute", which parses an unsigned integer and means "reset on every read"; ${m.field} is a current value: use Type "gauge".`,
      });
    if (m.path.length >= TRUNCATED_KEY_LENGTH)
      longKey(m.path, `${m.url.url} ${m.path}`);
    const parts = m.key.path.split('/');
    if (
      parts.length === 3 &&
      parts[1] === '*' &&
      (parts[2] === 'value' || parts[2] === '*') &&
      m.field === 'value'
    )
      getOrMake(valueWildcards, m.key, () => new Set()).add(m.name);
  }
  for (const url of poller.urls)
    for (const key of url.keys)
      if (key.path.length >= CRASHING_KEY_LENGTH)
        longKey(key.path, `${where(key)} Key "${key.path}"`);
  if (poller.maxReadIntervalS === undefined)
    pitfalls.push({
      tag: 'max-read-interval',
      text: `${poller.file}: no MaxReadInterval: after a failed read (a poller started before the server, a restart) collectd backs off 2, 4, 8 … s up to 86400 s, one read a day. Set MaxReadInterval to a few intervals.`,
    });
  for (const [key, names] of valueWildcards)
    pitfalls.push({
      tag: 'value-wildcard',
      text: `${where(key)} Key "${key.path}" reads the value of every gauge and up-down counter the URL serves, today ${[...names].join(', ')}, and any added later. Name the metrics you mean, one Key each.`,
    });
  return pitfalls;
}
