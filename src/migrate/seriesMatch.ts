/**
 * Which Prometheus series gives each legacy name, told apart where the exporter's sanitising makes
 * names meet: a counter `a` with `{op: "b"}` (legacy `a.b`) and a counter `a_b` both give the key
 * `a_b`, but only `a_total{op="b"}` ends in the literal value `b`. Where the exposition cannot
 * tell two legacy names apart, the match says so instead of picking one.
 */
import { getOrMake } from '../getOrMake';
import type { MetricKind } from '../snapshot/legacyValues';
import {
  legacyNameKey,
  legacyNameKeysOfSeries,
  PROMETHEUS_TYPES,
  prometheusFamily,
  prometheusName,
  prometheusSeries,
  type PrometheusSeries,
} from './prometheusNames';
import type { ExposedFamily } from './expositionIndex';

/** What a legacy name maps to. */
export type SeriesMatch =
  /**
   * `found`: one series gives it; `missing`: none does (yet), and `series` is the one an
   * instrument of that name without attributes would have. `instrument` is the instrument name
   * the legacy name starts with.
   */
  | {
      readonly status: 'found' | 'missing';
      readonly series: PrometheusSeries;
      readonly instrument: string;
    }
  /** The exposition cannot tell this name from another: no series is its own. */
  | { readonly status: 'collision'; readonly why: string };

interface Candidate {
  readonly series: PrometheusSeries;
  readonly instrument: string;
  /** The instrument name needed no sanitising: the legacy name holds the family name literally. */
  readonly literal: boolean;
}

/** A series as PromQL selects it, for messages. */
export function seriesText(series: PrometheusSeries): string {
  const labels = Object.entries(series.labels).map(
    ([k, v]) => `${k}=${JSON.stringify(v)}`
  );
  return `${series.family}${labels.length === 0 ? '' : `{${labels.join(', ')}}`}`;
}

/** Matches legacy names with the series of one exposition. */
export class SeriesMatcher {
  private readonly _byKey = new Map<string, PrometheusSeries[]>();
  private readonly _namesByKey = new Map<string, string[]>();
  private readonly _memo = new Map<string, SeriesMatch>();

  /**
   * @param families the exposition's families
   * @param legacyNames every legacy name the server lists, so that two that meet are both known
   */
  constructor(
    families: Iterable<ExposedFamily>,
    legacyNames: Iterable<string>
  ) {
    for (const family of families) {
      if (
        family.type !== 'counter' &&
        family.type !== 'gauge' &&
        family.type !== 'histogram'
      )
        continue;
      const labelKeys = new Set<string>();
      for (const labels of family.labelSets.values())
        for (const k of Object.keys(labels)) labelKeys.add(k);
      for (const labels of family.labelSets.values()) {
        const series: PrometheusSeries = {
          family: family.name,
          type: family.type,
          labels,
          absentLabels: [...labelKeys].filter(k => !(k in labels)).sort(),
        };
        for (const key of legacyNameKeysOfSeries(
          family.name,
          family.type,
          labels
        ))
          getOrMake(this._byKey, key, () => []).push(series);
      }
    }
    for (const name of new Set(legacyNames))
      getOrMake(this._namesByKey, legacyNameKey(name), () => []).push(name);
  }

  private _candidates(name: string, kind: MetricKind): Candidate[] {
    const type = PROMETHEUS_TYPES[kind];
    const found: Candidate[] = [];
    for (const series of this._byKey.get(legacyNameKey(name)) ?? []) {
      if (series.type !== type) continue;
      const values = Object.keys(series.labels)
        .sort()
        .map(k => `.${series.labels[k]!}`)
        .join('');
      if (!name.endsWith(values) || name.length === values.length) continue;
      const instrument = name.slice(0, name.length - values.length);
      if (prometheusFamily(instrument, kind) !== series.family) continue;
      if (found.some(c => c.series === series)) continue;
      found.push({
        series,
        instrument,
        literal: prometheusName(instrument) === instrument,
      });
    }
    return found;
  }

  /** The one candidate that is this name's own, or all of them when none is. */
  private _pick(name: string, kind: MetricKind): Candidate[] {
    const candidates = this._candidates(name, kind);
    const literal = candidates.filter(c => c.literal);
    return literal.length === 1 ? literal : candidates;
  }

  /** The series of legacy name `name` of kind `kind`. */
  match(name: string, kind: MetricKind): SeriesMatch {
    return getOrMake(this._memo, `${kind}\u0000${name}`, () =>
      this._match(name, kind)
    );
  }

  private _match(name: string, kind: MetricKind): SeriesMatch {
    const picked = this._pick(name, kind);
    if (picked.length === 0) {
      const series = prometheusSeries(name, kind);
      return { status: 'missing', series, instrument: name };
    }
    if (picked.length > 1)
      return {
        status: 'collision',
        why: `${name} could be any of ${picked.map(c => seriesText(c.series)).join(', ')}: the exporter's names cannot tell them apart`,
      };
    const own = picked[0]!;
    const others = (this._namesByKey.get(legacyNameKey(name)) ?? []).filter(
      other => {
        if (other === name) return false;
        const theirs = this._pick(other, kind);
        return theirs.length === 1 && theirs[0]!.series === own.series;
      }
    );
    if (others.length > 0)
      return {
        status: 'collision',
        why: `${[name, ...others].join(' and ')} are both ${seriesText(own.series)} in Prometheus: the exporter sanitises their names to one`,
      };
    return { status: 'found', series: own.series, instrument: own.instrument };
  }
}
