import { WARNING_CODES, type WarnOnce } from '../warnings';
import type { InstrumentState } from './instruments';
import { describeInstrument } from './LegacyNamer';
import type { ResolvedReaderOptions } from './options';
import type { HistogramNames } from './HistogramNames';
import { NameTotals } from './series';

/** How the warning of a name's clash names the instrument that gave the name. */
function originOf(instrument: InstrumentState): string {
  return `${describeInstrument(instrument)} (a ${instrument.kind})`;
}

/**
 * The legacy names served, each with what its series share. A name belongs to the kind of the
 * first instrument that gave it: the series of one kind combine by one rule, those of two kinds
 * cannot, so an instrument of another kind is refused the name, never mixed in.
 */
export class LegacyNameTable {
  /** Legacy name → what every series of that name shares: what `/all` serves is summed from it. */
  readonly totals = new Map<string, NameTotals>();
  /** Names a floating-point instrument joined in the tick under way: served as such once published. */
  private readonly _turnedFloat: NameTotals[] = [];

  constructor(
    private readonly _histogramNames: HistogramNames,
    private readonly _warnings: WarnOnce,
    private readonly _options: Pick<ResolvedReaderOptions, 'lastValueRules'>
  ) {}

  /**
   * What every series of `name` shares, for a series of `instrument`; `null` when an instrument
   * of another kind has the name, with one warning naming both.
   * @param gen the generation of the tick under way
   */
  claim(
    instrument: InstrumentState,
    name: string,
    gen: number
  ): NameTotals | null {
    let totals = this.totals.get(name);
    if (totals === undefined) {
      totals = new NameTotals(
        instrument.kind,
        instrument.integer,
        gen,
        originOf(instrument)
      );
      const rule = this._options.lastValueRules?.get(name);
      if (rule !== undefined) totals.lastValues = rule;
      if (totals.kind === 'histogram') this._histogramNames.add(totals);
      this.totals.set(name, totals);
      return totals;
    }
    if (totals.kind !== instrument.kind) {
      const origin = originOf(instrument);
      this._warnings.warn(
        `clash:${name}:${origin}`,
        WARNING_CODES.seriesLeftOut,
        `LegacyMetricsReader: legacy name ${name} is given by ${totals.origin} and by ${origin}; ` +
          `the first registered is served, and the ${instrument.kind} is left out of that name`
      );
      return null;
    }
    // A name is served as integers only while every instrument that feeds it is. The flag
    // turns at publication: the snapshot served while a tick is applied must not see it early.
    if (!instrument.integer && totals.integer) this._turnedFloat.push(totals);
    return totals;
  }

  /** Turns the names a floating-point instrument joined in this tick to floating point: part of publishing it. */
  publishFlags(): void {
    for (const totals of this._turnedFloat) totals.integer = false;
    this._turnedFloat.length = 0;
  }
}
