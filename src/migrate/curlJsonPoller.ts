/**
 * What a collectd configuration polls with the curl_json plugin: its `<URL>` blocks, their
 * `<Key>` entries, and the global settings that decide how often and how persistently it polls.
 */
import { readCollectdConfig, type CollectdItem } from './collectdConfig';

/** collectd's default `Interval`, in seconds. */
export const COLLECTD_DEFAULT_INTERVAL_S = 10;

/** One `<Key "path">` of a `<URL>` block. */
export interface CurlJsonKey {
  /** The key path, e.g. `metrics/*\/count`. */
  readonly path: string;
  /** The `Type` (types.db name), as written. */
  readonly type: string | undefined;
  readonly file: string;
  readonly line: number;
}

/** One `<URL "…">` block of `<Plugin curl_json>`. */
export interface CurlJsonUrl {
  readonly url: string;
  readonly instance: string | undefined;
  /** The block's own `Interval`, in seconds, if it sets one. */
  readonly intervalS: number | undefined;
  readonly keys: readonly CurlJsonKey[];
  readonly file: string;
  readonly line: number;
}

/** What one collectd configuration polls with curl_json. */
export interface CurlJsonPoller {
  readonly file: string;
  /** The global `Interval` (or the curl_json `LoadPlugin` block's), in seconds. */
  readonly intervalS: number;
  /** The global `MaxReadInterval`, in seconds, if set. */
  readonly maxReadIntervalS: number | undefined;
  readonly urls: readonly CurlJsonUrl[];
  /** Included files that were not found, as `file:line path`. */
  readonly missingIncludes: readonly string[];
}

const is = (item: CollectdItem, key: string): boolean =>
  item.key.toLowerCase() === key;

function option(
  items: readonly CollectdItem[],
  key: string
): CollectdItem | undefined {
  return items.findLast(item => is(item, key) && item.children.length === 0);
}

function numberOption(
  items: readonly CollectdItem[],
  key: string
): number | undefined {
  const value = option(items, key)?.values[0];
  const number =
    typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && !Number.isNaN(number)
    ? number
    : undefined;
}

function stringOption(
  items: readonly CollectdItem[],
  key: string
): string | undefined {
  const value = option(items, key)?.values[0];
  return value === undefined ? undefined : String(value);
}

/** Reads a collectd configuration file and what its curl_json plugin polls. */
export function readCurlJsonPoller(file: string): CurlJsonPoller {
  const { items, missingIncludes } = readCollectdConfig(file);
  const loadBlock = items.find(
    item =>
      is(item, 'loadplugin') &&
      item.children.length > 0 &&
      String(item.values[0]).toLowerCase() === 'curl_json'
  );
  const intervalS =
    numberOption(loadBlock?.children ?? [], 'interval') ??
    numberOption(items, 'interval') ??
    COLLECTD_DEFAULT_INTERVAL_S;
  const urls: CurlJsonUrl[] = [];
  for (const plugin of items) {
    if (
      !is(plugin, 'plugin') ||
      String(plugin.values[0]).toLowerCase() !== 'curl_json'
    )
      continue;
    for (const block of plugin.children) {
      if (!is(block, 'url') || typeof block.values[0] !== 'string') continue;
      urls.push({
        url: block.values[0],
        instance: stringOption(block.children, 'instance'),
        intervalS: numberOption(block.children, 'interval'),
        keys: block.children
          .filter(
            child => is(child, 'key') && typeof child.values[0] === 'string'
          )
          .map(child => ({
            path: String(child.values[0]),
            type: stringOption(child.children, 'type'),
            file: child.file,
            line: child.line,
          })),
        file: block.file,
        line: block.line,
      });
    }
  }
  return {
    file,
    intervalS,
    maxReadIntervalS: numberOption(items, 'maxreadinterval'),
    urls,
    missingIncludes,
  };
}
