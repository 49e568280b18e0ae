/**
 * The deprecation settings of a handler group: what they mean, the rules every form shares (code
 * options, the TOML `deprecation` table and the term form's `{deprecation, [...]}` option), and
 * the readers of the two configuration forms. An extension of the original configuration.
 */
import type { TomlTable, TomlValue } from 'smol-toml' with {
  'resolution-mode': 'import',
};
import { ConfigError } from '../errors';
import { expectedOneOf, shorten } from './listenerRules';
import type { TermNode } from './termParser';
import {
  formatInstant,
  isRepresentableInstant,
  MAX_INSTANT_MS,
  parseDuration,
  parseInstant,
} from './instants';
import { renderTerm } from './termPrinter';

export { formatInstant, parseDuration, parseInstant } from './instants';

/** One scheduled brownout: the legacy API answers 410 Gone for `duration` from `start` on. */
export interface BrownoutOptions {
  /**
   * When the window opens: an ISO 8601 date-time with an offset (`2026-05-04T10:00:00Z`), a date
   * alone (midnight UTC), or a `Date`.
   */
  start: string | Date;
  /** How long the window lasts: an ISO 8601 duration such as `PT30M`, `PT2H` or `P1D`. */
  duration: string;
}

/** How the legacy API announces its end. Every field but `since` is optional. */
export interface DeprecationOptions {
  /**
   * When the API became (or becomes) deprecated: an ISO 8601 date-time with an offset, a date
   * alone (midnight UTC), or a `Date`. Sent as the `Deprecation` header (RFC 9745).
   */
  since: string | Date;
  /**
   * When the API is switched off, in the same forms; never before `since`. Sent as the `Sunset`
   * header (RFC 8594).
   * @default undefined (no Sunset header)
   */
  sunset?: string | Date;
  /**
   * The absolute http(s) URL of the replacement, e.g. the Prometheus endpoint: a
   * `Link: <…>; rel="successor-version"` header and part of every 410 body.
   * @default undefined (with `createMeterProviderWithLegacyApi`: its Prometheus URL)
   */
  successor?: string;
  /**
   * The absolute http(s) URL of a page about the deprecation: a `Link: <…>; rel="deprecation"` header.
   * @default undefined
   */
  documentation?: string;
  /**
   * Add the spiral `legacyApiSunsetDays` (`count` and `one`: the days left until `sunset`, rounded
   * up, 0 once it has passed) to every host type or host and to the global metrics, for pollers
   * that never show headers. Needs `sunset`.
   * @default false
   */
  inBand?: boolean;
  /**
   * Answer every request with 410 Gone from the sunset instant on. Needs `sunset`.
   * @default false
   */
  enforceSunset?: boolean;
  /**
   * Windows during which every GET and HEAD answers 410 Gone, to rehearse the switch-off.
   * @default []
   */
  brownouts?: readonly BrownoutOptions[];
}

/** Deprecation settings after validation: instants in milliseconds since the epoch. */
export interface ResolvedDeprecation {
  readonly sinceMs: number;
  readonly sunsetMs: number | undefined;
  /** Normalized by the URL parser, so that it is safe inside a Link header. */
  readonly successor: string | undefined;
  readonly documentation: string | undefined;
  readonly inBand: boolean;
  readonly enforceSunset: boolean;
  /** The windows as given, each `[startMs, endMs)`. */
  readonly brownouts: ReadonlyArray<{
    readonly startMs: number;
    readonly endMs: number;
  }>;
}

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

const KEYS: Record<DeprecationKeyStyle, readonly string[]> = {
  camel: [
    'since',
    'sunset',
    'successor',
    'documentation',
    'inBand',
    'enforceSunset',
    'brownouts',
  ],
  snake: [
    'since',
    'sunset',
    'successor',
    'documentation',
    'in_band',
    'enforce_sunset',
    'brownouts',
  ],
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
  const keys = KEYS[style];
  const [, , , , inBandKey, enforceKey] = keys as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
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
  const inBand = flag(value, inBandKey, sunsetMs, fail);
  const enforceSunset = flag(value, enforceKey, sunsetMs, fail);
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
 * Reads the `deprecation` table of a TOML handler group (`[[…service_api]]` with a
 * `deprecation` table and `[[…deprecation.brownouts]]` windows).
 * @param place the table's key path, e.g. `listen.http[0].handlers.service_api[0].deprecation`
 * @throws ConfigError naming the key path of the first invalid setting
 */
export function readTomlDeprecation(
  value: TomlValue,
  place: string,
  file: string
): DeprecationOptions {
  const plain = tomlToPlain(value);
  resolveDeprecation(plain, 'snake', problem => {
    const where = problem.path === '' ? place : `${place}.${problem.path}`;
    throw new ConfigError(
      file,
      where,
      problem.unknownKey === true
        ? `found an unknown key, expected ${problem.expected}`
        : `found ${renderFound(problem.found)}, expected ${problem.expected}`
    );
  });
  return fromSnake(plain as Record<string, unknown>);
}

/** TOML dates as their ISO text (a local date-time, with no offset, is then refused); integers as numbers. */
function tomlToPlain(value: TomlValue): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(tomlToPlain);
  if (typeof value === 'object') {
    // Object.fromEntries defines keys, so `__proto__` stays a key and is refused as unknown.
    return Object.fromEntries(
      Object.entries(value as TomlTable).map(([key, item]) => [
        key,
        tomlToPlain(item),
      ])
    );
  }
  return value;
}

function fromSnake(plain: Record<string, unknown>): DeprecationOptions {
  const options: DeprecationOptions = {
    since: plain['since'] as string,
  };
  if (plain['sunset'] !== undefined) options.sunset = plain['sunset'] as string;
  if (plain['successor'] !== undefined)
    options.successor = plain['successor'] as string;
  if (plain['documentation'] !== undefined)
    options.documentation = plain['documentation'] as string;
  if (plain['in_band'] !== undefined)
    options.inBand = plain['in_band'] as boolean;
  if (plain['enforce_sunset'] !== undefined)
    options.enforceSunset = plain['enforce_sunset'] as boolean;
  if (plain['brownouts'] !== undefined)
    options.brownouts = plain['brownouts'] as BrownoutOptions[];
  return options;
}

/**
 * Reads the value of a term-form `{deprecation, [...]}` handler option: a proplist of
 * `{since, "2026-01-01"}`, `{sunset, "…"}`, `{successor, "http://…"}`, `{documentation, "…"}`,
 * `{in_band, true}`, `{enforce_sunset, true}` and `{brownouts, [[{start, "…"}, {duration, "PT1H"}], …]}`.
 * Strings may also be binaries (`<<"…">>`).
 * @throws ConfigError at the line and column of the first invalid setting
 */
export function readTermDeprecation(
  node: TermNode,
  file: string
): DeprecationOptions {
  const nodes = new Map<string, TermNode>([['', node]]);
  const plain = termToPlain(node, '', nodes, file);
  resolveDeprecation(plain, 'snake', problem => {
    const at =
      (problem.unknownKey === true
        ? nodes.get(`${problem.path}#option`)
        : undefined) ??
      nodes.get(problem.path) ??
      node;
    const rendered = renderTerm(at);
    const expected =
      problem.path === ''
        ? 'a list of {Name, Value} options with at least {since, Date}'
        : /^brownouts(?:\[\d+\])?$/.test(problem.path)
          ? 'a list of [{start, Date}, {duration, Duration}] lists'
          : problem.expected;
    throw new ConfigError(
      file,
      `line ${at.line}, column ${at.column}`,
      problem.unknownKey === true
        ? `found unknown option ${problem.path.replace(/^.*\./, '')} in deprecation, expected ${problem.expected}`
        : `found ${rendered} for ${problem.path === '' ? 'deprecation' : `deprecation ${problem.path}`}, expected ${expected}`
    );
  });
  return fromSnake(plain as Record<string, unknown>);
}

/** Stands for a term no rule accepts (a tuple, another atom): refused, and shown from its node. */
const OTHER_TERM = Symbol('other term');

/**
 * A term as the plain value the rules check: a proplist becomes an object, a list of proplists
 * an array of objects, strings and binaries strings, `true`/`false` booleans. Records the node of
 * every path for the error position. Anything else stays the node itself, which the rules refuse.
 */
function termToPlain(
  node: TermNode,
  path: string,
  nodes: Map<string, TermNode>,
  file: string
): unknown {
  nodes.set(path, node);
  switch (node.kind) {
    case 'string':
    case 'binary':
      return node.value;
    case 'atom':
      return node.value === 'true'
        ? true
        : node.value === 'false'
          ? false
          : OTHER_TERM;
    case 'integer':
      return Number(node.value);
    case 'float':
      return node.value;
    case 'list':
      if (
        path !== 'brownouts' &&
        node.elements.every(
          e =>
            e.kind === 'tuple' &&
            e.elements.length === 2 &&
            e.elements[0]!.kind === 'atom'
        )
      ) {
        // No prototype: `toString` or `__proto__` is a key like any other, refused as unknown.
        const object = Object.create(null) as Record<string, unknown>;
        for (const element of node.elements) {
          const [key, item] = (element as { elements: TermNode[] })
            .elements as [TermNode & { value: string }, TermNode];
          const prefix = path === '' ? '' : `${path}.`;
          const itemPath = `${prefix}${key.value}`;
          if (Object.hasOwn(object, key.value)) {
            throw new ConfigError(
              file,
              `line ${element.line}, column ${element.column}`,
              `found ${shorten(key.value)} a second time in deprecation, expected each option once`
            );
          }
          nodes.set(itemPath, element);
          object[key.value] = termToPlain(item, itemPath, nodes, file);
          // The option's tuple marks an unknown key; its value marks a bad value.
          nodes.set(itemPath, item);
          nodes.set(`${prefix}${shorten(key.value)}#option`, element);
        }
        return object;
      }
      if (path === 'brownouts') {
        return node.elements.map((element, index) =>
          termToPlain(element, `brownouts[${index}]`, nodes, file)
        );
      }
      return OTHER_TERM;
    default:
      return OTHER_TERM;
  }
}
