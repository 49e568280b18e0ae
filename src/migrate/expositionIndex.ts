/**
 * An exposition indexed once per read, for `compare`: every sample summed into a slot by sample
 * name, name labels, `le` and placement (host type, host or global), so that a key's value is one
 * lookup, not a scan of its family. Slots are numbered once for all reads; a read keeps only a
 * number per slot.
 */
import { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE } from '../attributes';
import { NON_NAME_LABELS } from '../reader/naming';

/** Where a legacy map reads its values: a host type, a host, or the global metrics. */
export type Placement =
  | { readonly label: 'host_type' | 'host'; readonly value: string }
  | { readonly label: 'global' };

/** A family of the exposition, as the matching of legacy names sees it. */
export interface ExposedFamily {
  readonly name: string;
  readonly type: string;
  /** The distinct sets of name labels (attributes a legacy name folds in) of its series. */
  readonly labelSets: Map<string, Readonly<Record<string, string>>>;
  /** A histogram's bucket bounds as the exposition writes them (`le`), by value. */
  readonly les: Map<number, string>;
}

/** One read of the exposition: when it started, and the sum held in each slot. */
export interface ExpositionRead {
  readonly startedAt: number;
  readonly values: Float64Array;
}

const HISTOGRAM_SUFFIXES = ['_bucket', '_count', '_sum'] as const;
const TYPE_LINE = /^#\s*TYPE\s+(\S+)\s+(\S+)/;

/** The canonical text of a set of name labels: the slot key's part for them. */
export function labelSetKey(labels: Readonly<Record<string, string>>): string {
  const keys = Object.keys(labels).sort();
  let text = '';
  for (const key of keys) text += `${key}\u0001${labels[key]!}\u0000`;
  return text;
}

function placementKey(placement: Placement): string {
  return placement.label === 'global'
    ? 'G'
    : `${placement.label === 'host' ? 'H' : 'T'}${placement.value}`;
}

function parseNumber(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** A line's labels, unescaped, as [name, value] pairs; undefined when they cannot be read. */
function parseLabels(text: string): [string, string][] | undefined {
  const labels: [string, string][] = [];
  let at = 0;
  while (at < text.length) {
    while (text[at] === ' ' || text[at] === ',') at++;
    if (at >= text.length) break;
    const eq = text.indexOf('="', at);
    if (eq === -1) return undefined;
    const name = text.slice(at, eq).trim();
    let i = eq + 2;
    let escaped = false;
    for (; i < text.length && text[i] !== '"'; i++)
      if (text[i] === '\\') {
        escaped = true;
        i++;
      }
    if (i >= text.length) return undefined;
    const raw = text.slice(eq + 2, i);
    const value = escaped
      ? raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
      : raw;
    labels.push([name, value]);
    at = i + 1;
  }
  return labels;
}

/**
 * The slots of one server's exposition. `variant` says which placement the legacy API uses, so
 * that each sample fills one slot.
 */
export class ExpositionIndex {
  private readonly _slots = new Map<string, number>();
  private _families = new Map<string, ExposedFamily>();

  constructor(private readonly _variant: 'host_type' | 'host') {}

  /** The families of the last read. */
  get families(): ReadonlyMap<string, ExposedFamily> {
    return this._families;
  }

  /** How many slots the reads so far have named. */
  get slotCount(): number {
    return this._slots.size;
  }

  /** Indexes one exposition text; throws an Error naming the line that cannot be read. */
  index(text: string, startedAt: number): ExpositionRead {
    const families = new Map<string, ExposedFamily>();
    const family = (name: string, type: string): ExposedFamily => {
      let found = families.get(name);
      if (found === undefined) {
        found = { name, type, labelSets: new Map(), les: new Map() };
        families.set(name, found);
      }
      return found;
    };
    let values = new Float64Array(Math.max(1024, this._slots.size + 64));
    let lineNumber = 0;
    for (let start = 0; start < text.length;) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      const line = text.slice(start, end).trim();
      start = end + 1;
      lineNumber++;
      if (line === '') continue;
      if (line.startsWith('#')) {
        const type = TYPE_LINE.exec(line);
        if (type !== null) family(type[1]!, type[2]!);
        continue;
      }
      const brace = line.indexOf('{');
      const close = brace === -1 ? -1 : line.lastIndexOf('}');
      const nameEnd = brace === -1 ? line.search(/\s/) : brace;
      const name = nameEnd === -1 ? line : line.slice(0, nameEnd);
      const labels =
        brace === -1 ? [] : parseLabels(line.slice(brace + 1, close));
      const rest = (
        close === -1 ? line.slice(name.length) : line.slice(close + 1)
      )
        .trim()
        .split(/\s+/);
      const value = parseNumber(rest[0] ?? '');
      if (
        name === '' ||
        labels === undefined ||
        (brace !== -1 && close < brace) ||
        rest[0] === '' ||
        Number.isNaN(value)
      )
        throw new Error(
          `line ${lineNumber}: cannot read ${JSON.stringify(line.slice(0, 200))}`
        );
      const suffix = HISTOGRAM_SUFFIXES.find(s => name.endsWith(s));
      const base = suffix === undefined ? name : name.slice(0, -suffix.length);
      const owner =
        suffix !== undefined && families.get(base)?.type === 'histogram'
          ? families.get(base)!
          : family(name, families.get(name)?.type ?? 'untyped');
      let le = '';
      let hostType = '';
      let host = '';
      const named: [string, string][] = [];
      for (const pair of labels) {
        if (pair[0] === 'le') le = pair[1];
        else if (pair[0] === HOST_TYPE_ATTRIBUTE) hostType = pair[1];
        else if (pair[0] === HOST_ATTRIBUTE) host = pair[1];
        if (!NON_NAME_LABELS.has(pair[0]) && pair[1] !== '') named.push(pair);
      }
      named.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      let labelKey = '';
      for (const [k, v] of named) labelKey += `${k}\u0001${v}\u0000`;
      const histogram = owner.type === 'histogram';
      if (histogram && name.endsWith('_bucket') && le !== '')
        owner.les.set(parseNumber(le), le);
      if (
        (!histogram || name.endsWith('_count')) &&
        !owner.labelSets.has(labelKey)
      )
        owner.labelSets.set(labelKey, Object.fromEntries(named));
      let placement: string;
      if (hostType === '' && host === '') placement = 'G';
      else if (this._variant === 'host')
        placement = `H${host !== '' ? host : hostType}`;
      else if (hostType !== '') placement = `T${hostType}`;
      else continue;
      const key = `${name}\u0002${labelKey}\u0002${le}\u0002${placement}`;
      let slot = this._slots.get(key);
      if (slot === undefined) {
        slot = this._slots.size;
        this._slots.set(key, slot);
      }
      if (slot >= values.length) {
        const grown = new Float64Array(values.length * 2);
        grown.set(values);
        values = grown;
      }
      values[slot] = values[slot]! + value;
    }
    this._families = families;
    return { startedAt, values: values.slice(0, this._slots.size) };
  }

  /**
   * The sum of the samples named `sample` with exactly `labels` as name labels, at `le` ('' for
   * none), under `placement`, in `read`: 0 where there is none.
   */
  value(
    read: ExpositionRead,
    sample: string,
    labels: string,
    le: string,
    placement: Placement
  ): number {
    const slot = this._slots.get(
      `${sample}\u0002${labels}\u0002${le}\u0002${placementKey(placement)}`
    );
    return slot === undefined ? 0 : (read.values[slot] ?? 0);
  }
}
