/**
 * The one place that checks options given in code, for every entry point (reader, plugin,
 * server, listeners, provider): the same checks and the same wording everywhere. Every problem
 * is an {@link InvalidOptionError} that names the option's full path (`prometheus.port`,
 * `listeners[1].handlerGroups[0].path`), what was found and what was expected.
 *
 * It also normalises URL prefixes. What counts as loopback is decided in `hostNames`; the
 * "did you mean" of an unknown name in `nameSuggestion`.
 */
import { InvalidOptionError } from './errors';
import { expectedOneOf, listOf } from './nameSuggestion';

/** What each common kind of option should have been. */
export const EXPECTED_OPTION = Object.freeze({
  port: 'an integer from 0 to 65535',
  positiveInteger: 'a positive integer',
  nonEmptyString: 'a non-empty string',
  boolean: 'a boolean',
  function: 'a function',
  object: 'an object',
  prefix: 'a string starting with "/"',
});

/** A value as a message shows it: strings quoted, containers by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date)
    return Number.isNaN(value.getTime())
      ? 'an invalid Date'
      : `Date ${value.toISOString()}`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/** The longest rendering of a found value or name before a message cuts it. */
export const MAX_RENDERED_LENGTH = 60;

/** Cuts a long rendering so a message stays on one screen line. */
export function shorten(rendered: string): string {
  return rendered.length <= MAX_RENDERED_LENGTH
    ? rendered
    : `${rendered.slice(0, MAX_RENDERED_LENGTH - 1)}…`;
}

/** `base.key`, or `key` at the top. */
export function optionPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}

/** Throws the error every entry point throws for an invalid option. */
export function invalidOption(
  path: string,
  found: unknown,
  expected: string
): never {
  throw new InvalidOptionError(
    `${path === '' ? 'options' : path}: found ${describeValue(found)}, expected ${expected}`,
    { option: path, found, expected }
  );
}

/** Throws the error every entry point throws for an option it does not know (`found` its value). */
export function unknownOption(
  path: string,
  expected: string,
  found?: unknown
): never {
  throw new InvalidOptionError(
    `${path}: found an unknown option, expected ${expected}`,
    { option: path, found, expected }
  );
}

/** True for a non-null object that is not an array. */
export function isPlainObject(
  value: unknown
): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Names that mean two things elsewhere, and the options of ours that take each meaning: in the
 * programmatic API, `host` is neither, so that a bind address is never called by the name of a
 * Host header.
 */
const AMBIGUOUS_NAMES: Readonly<
  Record<string, Readonly<Record<string, string>>>
> = {
  host: {
    allowedHost: 'the Host header to answer',
    address: 'the address to bind',
  },
};

/** What an unknown `key` should have been: a known name, with the meant one where it can tell. */
function expectedInsteadOf(key: string, known: readonly string[]): string {
  const meanings = Object.hasOwn(AMBIGUOUS_NAMES, key)
    ? Object.entries(AMBIGUOUS_NAMES[key]!).filter(([name]) =>
        known.includes(name)
      )
    : [];
  if (meanings.length === 0) return expectedOneOf(key, known);
  const meant = meanings.map(([name, meaning]) => `${name} for ${meaning}`);
  return `${listOf(known)} (did you mean ${meant.join(' or ')}?)`;
}

/**
 * Checks that `value` is an object whose keys are all known; an unknown key is reported with
 * the nearest known name (`hots` → did you mean `host`?), or for `host` with the option that
 * takes the meaning intended (`allowedHost` for the Host header, `address` for the bind address).
 */
export function checkOptionObject(
  path: string,
  value: unknown,
  known: readonly string[],
  expected: string = EXPECTED_OPTION.object
): asserts value is Record<string, unknown> {
  if (!isPlainObject(value)) invalidOption(path, value, expected);
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    unknownOption(
      optionPath(path, shorten(key)),
      expectedInsteadOf(key, known),
      value[key]
    );
  }
}

/**
 * The check of one kind of option: a value left out gives `fallback`, one that fails `test` is
 * an {@link InvalidOptionError} saying `expected`.
 */
function optionOfKind<T>(
  test: (value: unknown) => value is T,
  expected: string
): <F extends T | undefined = undefined>(
  path: string,
  value: unknown,
  fallback?: F
) => T | F {
  return (path, value, fallback) => {
    if (value === undefined) return fallback as never;
    if (!test(value)) invalidOption(path, value, expected);
    return value;
  };
}

/** True for an integer from 0 to 65535. */
export function isPort(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= 0 &&
    value <= 65535
  );
}

/** An integer port, 0–65535, or `fallback` when left out. */
export const portOption = optionOfKind(isPort, EXPECTED_OPTION.port);

/** A positive safe integer, or `fallback` when left out. */
export const positiveIntegerOption = optionOfKind(
  (value): value is number =>
    typeof value === 'number' && Number.isSafeInteger(value) && value > 0,
  EXPECTED_OPTION.positiveInteger
);

/** A non-empty string, or `fallback` when left out. */
export const nonEmptyStringOption = optionOfKind(
  (value): value is string => typeof value === 'string' && value !== '',
  EXPECTED_OPTION.nonEmptyString
);

/** A boolean, or `fallback` when left out. */
export const booleanOption = optionOfKind(
  (value): value is boolean => typeof value === 'boolean',
  EXPECTED_OPTION.boolean
);

/** A function, or undefined when left out. */
export function functionOption<F>(path: string, value: unknown): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function')
    invalidOption(path, value, EXPECTED_OPTION.function);
  return value as F;
}

/** One of `allowed` (compared with `===`), or `fallback` when left out. */
export function oneOfOption<T>(
  path: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T
): T {
  if (value === undefined) return fallback;
  const found = allowed.find(candidate => candidate === value);
  if (found === undefined) {
    invalidOption(
      path,
      value,
      expectedOneOf(
        typeof value === 'string' ? value : '',
        allowed.map(a =>
          typeof a === 'string' ? JSON.stringify(a) : String(a)
        )
      )
    );
  }
  return found;
}

/**
 * A URL prefix (`/api`), normalised once for every caller: without a trailing slash, except
 * that `/` stays `/`.
 */
export function prefixOption(
  path: string,
  value: unknown,
  fallback?: string
): string {
  const prefix = value ?? fallback;
  if (typeof prefix !== 'string' || !prefix.startsWith('/'))
    invalidOption(path, prefix, EXPECTED_OPTION.prefix);
  return normalizePrefix(prefix);
}

/** `/api/` → `/api`; `/` stays `/`. */
export function normalizePrefix(prefix: string): string {
  return prefix.length > 1 && prefix.endsWith('/')
    ? prefix.slice(0, -1)
    : prefix;
}
