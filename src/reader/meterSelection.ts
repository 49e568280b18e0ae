/**
 * Which meters (instrumentation scopes) the legacy API serves. The original API served the
 * messaging server's own metrics only: the meters of instrumentation libraries (HTTP, database
 * clients) and the package's own usage telemetry are for Prometheus and OTLP.
 */
import { PACKAGE_METER_NAME } from '../attributes';
import {
  checkOptionObject,
  invalidOption,
  optionPath,
} from '../optionValidation';

/** A meter name (exact) or a pattern its name must match. */
export type MeterPattern = string | RegExp;

/** The `meters` option of {@link LegacyMetricsReaderOptions}: which meters are served. */
export interface MeterSelection {
  /**
   * The meters served, by exact name or pattern. When given, only these are served, the
   * meters left out by default included if named here.
   * @default every meter but the package's own (`otel-legacy-metrics-api`) and those of
   *   OpenTelemetry instrumentation libraries (names beginning with `@opentelemetry/instrumentation-`)
   */
  include?: readonly MeterPattern[];
  /**
   * Meters left out even when `include` (or the default) takes them.
   * @default []
   */
  exclude?: readonly MeterPattern[];
}

/** The instrumentation scope of an instrument: its meter's name, version and schema URL. */
export interface MeterScope {
  readonly name: string;
  readonly version?: string;
  readonly schemaUrl?: string;
}

/** The meters left out when `include` is not given. */
export const METERS_LEFT_OUT_BY_DEFAULT: readonly MeterPattern[] =
  Object.freeze([PACKAGE_METER_NAME, /^@opentelemetry\/instrumentation-/]);

const EXPECTED_PATTERNS =
  'an array of meter names (non-empty strings) and patterns (RegExps)';

function matches(patterns: readonly MeterPattern[], name: string): boolean {
  return patterns.some(pattern =>
    typeof pattern === 'string' ? pattern === name : pattern.test(name)
  );
}

/**
 * A copy of the patterns, each RegExp without the `g` and `y` flags: those make `test` carry
 * state (`lastIndex`) from one meter to the next.
 */
function patternList(
  path: string,
  value: unknown
): readonly MeterPattern[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) invalidOption(path, value, EXPECTED_PATTERNS);
  return Object.freeze(
    value.map((item: unknown, index): MeterPattern => {
      if (typeof item === 'string' && item !== '') return item;
      if (item instanceof RegExp)
        return new RegExp(item.source, item.flags.replace(/[gy]/g, ''));
      return invalidOption(
        optionPath(path, index),
        item,
        'a non-empty string or a RegExp'
      );
    })
  );
}

/** The `meters` option, validated: decides whether a meter is served. */
export class MeterFilter {
  private constructor(
    private readonly _include: readonly MeterPattern[] | undefined,
    private readonly _exclude: readonly MeterPattern[]
  ) {}

  /** Validates the option once, up front; never writes into it. */
  static resolve(path: string, value: unknown): MeterFilter {
    if (value === undefined) return new MeterFilter(undefined, []);
    checkOptionObject(path, value, ['include', 'exclude']);
    return new MeterFilter(
      patternList(optionPath(path, 'include'), value.include),
      patternList(optionPath(path, 'exclude'), value.exclude) ?? []
    );
  }

  /** Whether the legacy API serves the instruments of the meter named `name`. */
  serves(name: string): boolean {
    const included =
      this._include === undefined
        ? !matches(METERS_LEFT_OUT_BY_DEFAULT, name)
        : matches(this._include, name);
    return included && !matches(this._exclude, name);
  }
}
