/**
 * The rules every form of deprecation settings shares (code options, the TOML `deprecation`
 * table, the term form's `{deprecation, [...]}` option), in either key spelling, and their
 * resolution. Settings are resolved once: the resolution of a settings object is kept, so
 * that the loader, the listeners, the plugin and the printers all use the one result.
 */
import { expectedOneOf } from '../nameSuggestion';
import { shorten } from '../optionValidation';
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

/** Each settings object's resolution: options are read once, when first given. */
const RESOLVED = new WeakMap<object, ResolvedDeprecation>();

/** A setting that breaks a rule: where (`sunset`, `brownouts[1].duration`), what was found, what is expected. */
export interface DeprecationProblem {
  readonly path: string;
  /** The value as found, rendered; undefined for an unknown key. */
  readonly found: unknown;
  readonly expected: string;
  readonly unknownKey?: boolean;
}

/** Field names in code (`inBand`) or in configuration files (`in_band`). */
export type DeprecationKeyStyle = 'camel' | 'snake';

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

/** The URL as the WHATWG parser writes it, when it is absolute http or https; undefined otherwise. */
export function parseHttpUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const parsed = new URL(text);
  return parsed.protocol === 'http:' || parsed.protocol === 'https:'
    ? parsed.href
    : undefined;
}

/** A key's own value: never one inherited from Object.prototype (`constructor`, `toString`). */
function own(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date)
  );
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
  const known =
    typeof value === 'object' && value !== null
      ? RESOLVED.get(value)
      : undefined;
  if (known !== undefined) return known;
  const keys = KEYS[style];
  if (!isPlainObject(value)) {
    return fail({
      path: '',
      found: value,
      expected: `${style === 'camel' ? 'an object' : 'a table'} with at least "since"`,
    });
  }
  checkKeys(value, '', keys, fail);
  const sinceMs = instant(value, 'since', fail, true)!;
  const sunsetMs = instant(value, 'sunset', fail, false);
  if (sunsetMs !== undefined && sunsetMs < sinceMs) {
    fail({
      path: 'sunset',
      found: own(value, 'sunset'),
      expected: `an instant not before since (${formatInstant(sinceMs)})`,
    });
  }
  const successor = url(value, 'successor', fail);
  const documentation = url(value, 'documentation', fail);
  const inBand = flag(value, keys[4]!, sunsetMs, fail);
  const enforceSunset = flag(value, keys[5]!, sunsetMs, fail);
  const list = own(value, 'brownouts') ?? [];
  if (!Array.isArray(list)) {
    fail({
      path: 'brownouts',
      found: list,
      expected: `${style === 'camel' ? 'an array' : 'an array of tables'} of { start, duration } windows`,
    });
  }
  const brownouts = (list as unknown[]).map((window, index) => {
    const path = `brownouts[${index}]`;
    if (!isPlainObject(window)) {
      return fail({
        path,
        found: window,
        expected: `${style === 'camel' ? 'an object' : 'a table'} with start and duration`,
      });
    }
    checkKeys(window, `${path}.`, BROWNOUT_KEYS, fail);
    const startMs = instant(window, 'start', fail, true, `${path}.`)!;
    const text = own(window, 'duration');
    const durationMs =
      typeof text === 'string' ? parseDuration(text) : undefined;
    if (durationMs === undefined) {
      fail({
        path: `${path}.duration`,
        found: text,
        expected: DEPRECATION_EXPECTED.duration,
      });
    }
    const endMs = startMs + durationMs;
    if (!isRepresentableInstant(endMs)) {
      fail({
        path: `${path}.duration`,
        found: text,
        expected: `a duration that ends the window by ${formatInstant(MAX_INSTANT_MS)}, the latest instant a date can hold`,
      });
    }
    return { startMs, endMs };
  });
  const resolved = {
    sinceMs,
    sunsetMs,
    successor,
    documentation,
    inBand,
    enforceSunset,
    brownouts,
  };
  RESOLVED.set(value, resolved);
  return resolved;
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
  fail: (problem: DeprecationProblem) => never,
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
  if (ms === undefined || !isRepresentableInstant(ms)) {
    fail({
      path: `${prefix}${key}`,
      found: given,
      expected: DEPRECATION_EXPECTED.instant,
    });
  }
  return ms;
}

function url(
  value: Record<string, unknown>,
  key: string,
  fail: (problem: DeprecationProblem) => never
): string | undefined {
  const given = own(value, key);
  if (given === undefined) return undefined;
  const href = typeof given === 'string' ? parseHttpUrl(given) : undefined;
  if (href === undefined)
    fail({ path: key, found: given, expected: DEPRECATION_EXPECTED.url });
  return href;
}

function flag(
  value: Record<string, unknown>,
  key: string,
  sunsetMs: number | undefined,
  fail: (problem: DeprecationProblem) => never
): boolean {
  const given = own(value, key) ?? false;
  if (typeof given !== 'boolean')
    fail({ path: key, found: given, expected: DEPRECATION_EXPECTED.boolean });
  if (given && sunsetMs === undefined) {
    fail({
      path: key,
      found: given,
      expected: 'false, or a sunset to go with it',
    });
  }
  return given;
}

/** A value found in code or TOML, as a message shows it. */
export function renderFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value instanceof Date)
    return Number.isNaN(value.getTime())
      ? 'an invalid Date'
      : `Date ${value.toISOString()}`;
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return shorten(JSON.stringify(value));
  return shorten(JSON.stringify(value) ?? String(value));
}

/**
 * Settings read from a file (`in_band`, `enforce_sunset`), validated, as the options code
 * gives; their resolution is kept for every later reader.
 * @param fail called with the first problem; throws the file's ConfigError
 */
export function deprecationFromFile(
  plain: unknown,
  fail: (problem: DeprecationProblem) => never
): DeprecationOptions {
  const resolved = resolveDeprecation(plain, 'snake', fail);
  const options = fromSnake(plain as Record<string, unknown>);
  RESOLVED.set(options, resolved);
  return options;
}

function fromSnake(plain: Record<string, unknown>): DeprecationOptions {
  const options: Record<string, unknown> = {};
  CAMEL_KEYS.forEach((key, index) => {
    const value = plain[KEYS.snake[index]!];
    if (value !== undefined || key === 'since') options[key] = value;
  });
  return options as unknown as DeprecationOptions;
}
