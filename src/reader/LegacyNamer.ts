/**
 * Where an attribute set of an instrument is served: its legacy name (the `legacyName` option,
 * or the default naming) and its host type or host, decided once per attribute set, with the
 * warnings for those that cannot be served.
 */
import type { Attributes } from '@opentelemetry/api';
import { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE } from '../attributes';
import { errorText, WARNING_CODES, type WarnOnce } from '../warnings';
import type { InstrumentState } from './instruments';
import { defaultLegacyName, placementName } from './naming';
import type { LegacyNameFunction, ResolvedReaderOptions } from './options';

/** The attribute of the series the SDK sums an instrument's attribute sets into past its cardinality limit. */
export const OVERFLOW_ATTRIBUTE = 'otel.metric.overflow';

const NO_ATTRIBUTES: Attributes = Object.freeze({});

/** A legacy series' name and place; no host type and no host: the global group. */
export interface SeriesPlace {
  readonly name: string;
  readonly hostType: string | undefined;
  readonly host: string | undefined;
}

/** `instrument sent of meter "app"`: how warnings name an instrument. */
export function describeInstrument(instrument: InstrumentState): string {
  return `instrument ${instrument.name} of meter ${JSON.stringify(instrument.scope.name)}`;
}

/** Decides the place of each new attribute set. */
export class LegacyNamer {
  constructor(
    private readonly _options: ResolvedReaderOptions,
    private readonly _warnings: WarnOnce
  ) {}

  /**
   * The place of an attribute set: `null` when it is left out for good, `undefined` when only
   * this tick's data is (`legacyName` threw: the next tick asks again).
   * @param pointCount how many data points the instrument brought in this collection
   */
  place(
    instrument: InstrumentState,
    attributes: Attributes,
    pointCount: number
  ): SeriesPlace | null | undefined {
    // The SDK's overflow series holds attribute sets it could not keep apart: it is the
    // instrument's own total, not a name of its own (`sent.true`), and has no place but global.
    const overflow = attributes[OVERFLOW_ATTRIBUTE] === true;
    if (overflow) this._warnOverflow(instrument, pointCount - 1);
    const named = overflow ? NO_ATTRIBUTES : attributes;
    const custom = this._options.legacyName;
    const naming: LegacyNameFunction = custom ?? defaultLegacyName;
    let name: unknown;
    try {
      name = naming(instrument.name, named, instrument.scope);
    } catch (error) {
      this._warnings.warn(
        `legacyName:${instrument.name}:${errorText(error)}`,
        WARNING_CODES.seriesFault,
        `LegacyMetricsReader: legacyName threw for ${describeInstrument(instrument)} (${errorText(error)}); ` +
          `the data of ${JSON.stringify(attributes)} is left out of this tick`,
        error
      );
      return undefined;
    }
    if (name === undefined) return null;
    if (typeof name !== 'string' || name === '' || name.includes('/')) {
      // Only a legacyName the user gave is blamed: the default naming gives "/" from attribute values.
      const source =
        custom === undefined
          ? `the default legacy name ${JSON.stringify(name)} of ${describeInstrument(instrument)} (from ${JSON.stringify(attributes)})`
          : `legacyName gave ${JSON.stringify(name)} for ${describeInstrument(instrument)}`;
      this._warnings.warn(
        `name:${instrument.name}:${String(name)}`,
        WARNING_CODES.seriesLeftOut,
        `LegacyMetricsReader: ${source}: expected a non-empty string without "/"; the series is left out` +
          (custom === undefined
            ? ' (a legacyName option can name it otherwise)'
            : '')
      );
      return null;
    }
    if (overflow || this._options.allMetricsAreGlobal)
      return { name, hostType: undefined, host: undefined };
    return {
      name,
      hostType: placementName(attributes[HOST_TYPE_ATTRIBUTE]),
      host: placementName(attributes[HOST_ATTRIBUTE]),
    };
  }

  private _warnOverflow(instrument: InstrumentState, kept: number): void {
    const limit = this._options.cardinalityLimit;
    this._warnings.warn(
      `overflow:${instrument.scope.name}:${instrument.name}`,
      WARNING_CODES.cardinalityOverflow,
      `LegacyMetricsReader: ${describeInstrument(instrument)} passed its cardinality limit: ` +
        `in one collection it kept ${kept} attribute sets apart and summed every further one ` +
        '(the SDK does not say how many) into one overflow series. Their data is counted in the ' +
        "instrument's global metric and in /all, not under host types or names of their own. " +
        `Raise the reader's cardinalityLimit option (now ${limit}; legacy.cardinalityLimit in ` +
        'createMeterProviderWithLegacyApi), or the aggregationCardinalityLimit of a View that sets one'
    );
  }
}
