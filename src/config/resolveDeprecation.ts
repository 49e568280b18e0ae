/**
 * The rules every form of deprecation settings shares (code options, the TOML `deprecation`
 * table, the term form's `{deprecation, [...]}` option), in either key spelling, and their
 * resolution. A file's settings are checked where the file is read, so that errors name their
 * place in it; each entry point then resolves the options it is given once and hands the
 * resolved value inward.
 */
import { expectedOneOf } from '../nameSuggestion';
import { describeValue, isPlainObject, shorten } from '../optionValidation';
import type {
  DeprecationOptions,
  ResolvedDeprecation,
} from './deprecationOptions';
import {
  formatInstant,
  isRepresentableInstant,
  MAX_INSTANT_MS,
  parseDuration,
  parseInstant,
} from './instants';

/** A setting that breaks a rule: where (`sunset`, `brownouts[1].duration`), what was found, what is expected. */
interface DeprecationProblem {
  readonly path: string;
  /** The value as found, rendered; undefined for an unknown key. */
  readonly found: unknown;
  readonly expected: string;
  readonly unknownKey?: boolean;
}

/** Reports a value that breaks a rule: where, what was found, what is expected. */
type Reject = (path: string, found: unknown, expected: string) => never;

/** Field names in code (`inBand`) or in configuration files (`in_band`). */
type DeprecationKeyStyle = 'camel' | 'snake';

/** The expected forms, shared by every message. */
export const DEPRECATION_EXPECTED = {
  instant:
    'an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
  duration:
    'a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
  url: 'an absolute http or https URL',
  boolean: 'true or false',
} as const;

/** The keys in code, in the order options are written back. */
const CAMEL_KEYS: readonly string[] = [
  'since',
  'sunset',
  'successor',
  'documentation',
  'inBand',
  'enforceSunset',
  'brownouts',
];
const KEYS: Record<DeprecationKeyStyle, readonly string[]> = {
  camel: CAMEL_KEYS,
  snake: CAMEL_KEYS.map(key =>
    key.replace(/[A-Z]/g, letter => `_${letter.toLowerCase()}`)
  ),
};
const BROWNOUT_KEYS: readonly string[] = ['start', 'duration'];

/** `value` as the WHATWG parser writes it, when it is an absolute http or https URL; else undefined. */
export function parseHttpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const parsed = new URL(value);
  return parsed.protocol === 'http:' || parsed.protocol === 'https:'
    ? parsed.href
    : undefined;
}

/** A key's own value: never one inherited from Object.prototype (`constructor`, `toString`). */
function own(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

function isSettingsObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && !(value instanceof Date);
}

/**
 * Validates deprecation settings of any form. `fail` is called with the first problem and must
 * throw (an InvalidOptionError for code, a ConfigError for a file).
 */
export function resolveDeprecation(
  value: unknown,
  style: DeprecationKeyStyle,
  fail: (problem: DeprecationProblem) => never
): ResolvedDeprecation {
  const keys = KEYS[style];
  const reject: Reject = (path, found, expected) =>
    fail({ path, found, expected });
  const object = style === 'camel' ? 'an object' : 'a table';
  if (!isSettingsObject(value))
    return reject('', value, `${object} with at least "since"`);
  checkKeys(value, '', keys, fail);
  const sinceMs = instant(value, 'since', reject, true)!;
  const sunsetMs = instant(value, 'sunset', reject, false);
  if (sunsetMs !== undefined && sunsetMs < sinceMs) {
    const expected = `an instant not before since (${formatInstant(sinceMs)})`;
    reject('sunset', own(value, 'sunset'), expected);
  }
  const successor = url(value, 'successor', reject);
  const documentation = url(value, 'documentation', reject);
  const inBand = flag(value, keys[4]!, sunsetMs, reject);
  const enforceSunset = flag(value, keys[5]!, sunsetMs, reject);
  const list = own(value, 'brownouts') ?? [];
  if (!Array.isArray(list)) {
    const array = style === 'camel' ? 'an array' : 'an array of tables';
    reject('brownouts', list, `${array} of { start, duration } windows`);
  }
  const brownouts = (list as unknown[]).map((window, index) => {
    const path = `brownouts[${index}]`;
    if (!isSettingsObject(window))
      return reject(path, window, `${object} with start and duration`);
    checkKeys(window, `${path}.`, BROWNOUT_KEYS, fail);
    const startMs = instant(window, 'start', reject, true, `${path}.`)!;
    const text = own(window, 'duration');
    const durationMs =
      typeof text === 'string' ? parseDuration(text) : undefined;
    if (durationMs === undefined)
      reject(`${path}.duration`, text, DEPRECATION_EXPECTED.duration);
    const endMs = startMs + durationMs;
    if (!isRepresentableInstant(endMs)) {
      const latest = formatInstant(MAX_INSTANT_MS);
      reject(
        `${path}.duration`,
        text,
        `a duration that ends the window by ${latest}, the latest instant a date can hold`
      );
    }
    return { startMs, endMs };
  });
  return {
    sinceMs,
    sunsetMs,
    successor,
    documentation,
    inBand,
    enforceSunset,
    brownouts,
  };
}

function checkKeys(
  value: Record<string, unknown>,
  prefix: string,
  known: readonly string[],
  fail: (problem: DeprecationProblem) => never
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key) || value[key] === undefined) continue;
    fail({
      path: `${prefix}${shorten(key)}`,
      found: undefined,
      expected: expectedOneOf(key, known),
      unknownKey: true,
    });
  }
}

function instant(
  value: Record<string, unknown>,
  key: string,
  reject: Reject,
  required: boolean,
  prefix = ''
): number | undefined {
  const given = own(value, key);
  if (given === undefined && !required) return undefined;
  const ms =
    given instanceof Date
      ? given.getTime()
      : typeof given === 'string'
        ? parseInstant(given)
        : undefined;
  if (ms === undefined || !isRepresentableInstant(ms))
    reject(`${prefix}${key}`, given, DEPRECATION_EXPECTED.instant);
  return ms;
}

function url(
  value: Record<string, unknown>,
  key: string,
  reject: Reject
): string | undefined {
  const given = own(value, key);
  if (given === undefined) return undefined;
  const href = parseHttpUrl(given);
  if (href === undefined) reject(key, given, DEPRECATION_EXPECTED.url);
  return href;
}

function flag(
  value: Record<string, unknown>,
  key: string,
  sunsetMs: number | undefined,
  reject: Reject
): boolean {
  const given = own(value, key) ?? false;
  if (typeof given !== 'boolean')
    reject(key, given, DEPRECATION_EXPECTED.boolean);
  if (given && sunsetMs === undefined)
    reject(key, given, 'false, or a sunset to go with it');
  return given;
}

/** A value found in code or TOML, as a message shows it. */
export function renderFound(value: unknown): string {
  if (
    value === undefined ||
    value instanceof Date ||
    typeof value === 'function'
  )
    return describeValue(value);
  if (typeof value === 'bigint') return String(value);
  return shorten(JSON.stringify(value) ?? String(value));
}

/**
 * Settings read from a file (`in_band`, `enforce_sunset`), validated, as the options code gives.
 * @param fail called with the first problem; throws the file's ConfigError
 */
export function deprecationFromFile(
  plain: unknown,
  fail: (problem: DeprecationProblem) => never
): DeprecationOptions {
  resolveDeprecation(plain, 'snake', fail);
  const options: Record<string, unknown> = {};
  CAMEL_KEYS.forEach((key, index) => {
    const value = (plain as Record<string, unknown>)[KEYS.snake[index]!];
    if (value !== undefined || key === 'since') options[key] = value;
  });
  return options as unknown as DeprecationOptions;
}
