import { legacyNumber, type LegacyValue } from './legacyValues';
import {
  listingOf,
  type LegacySerializer,
  type MetricEntries,
} from './serializer';

function value(v: LegacyValue): string {
  let out = '{';
  for (let i = 0; i < v.names.length; i++) {
    if (i > 0) out += ',';
    out += `${JSON.stringify(v.names[i])}:${legacyNumber(v.numbers[i]!, v.integer)}`;
  }
  return `${out}}`;
}

/** The original's compact JSON: no whitespace, `[]` for an empty list or map. */
export const jsonSerializer: LegacySerializer = Object.freeze({
  contentType: 'application/json',
  listing: listingOf(
    '{',
    ',',
    '}',
    (key, list) => `${JSON.stringify(key)}:${JSON.stringify(list)}`
  ),
  metrics(entries: MetricEntries): string {
    if (entries.length === 0) return '{"metrics":[]}';
    let out = '{"metrics":{';
    for (let i = 0; i < entries.length; i++) {
      const [name, v] = entries[i]!;
      if (i > 0) out += ',';
      out += `${JSON.stringify(name)}:${value(v)}`;
    }
    return `${out}}}`;
  },
  metric(v: LegacyValue): string {
    return `{"metric":${value(v)}}`;
  },
  error(code: string, message: string): string {
    return JSON.stringify({ error: code, message });
  },
});
