/**
 * An exposition indexed once per read, for `compare`: every sample summed into a slot by sample
 * name, name labels, `le` and placement (host type, host or global), so that a key's value is one
 * lookup, not a scan of its family. Slots are numbered once for all reads; a read keeps only a
 * number per slot. A read is parsed as it arrives, chunk by chunk, so that the text is never held
 * whole, and a series line seen before (the exporter writes the same text for the same series)
 * costs one lookup of its text, not a parse of its labels.
 */
import { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE } from '../attributes';
import type { SeriesPlacement } from './legacyUrl';
import { NON_NAME_LABELS } from './prometheusNames';

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
  return pairsKey(Object.entries(labels));
}

/** The same text from [name, value] pairs, which it sorts in place. */
function pairsKey(pairs: [string, string][]): string {
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Joined, not concatenated: a flat string, where `+=` would keep a tree of pieces per key.
  return pairs.map(([k, v]) => `${k}\u0001${v}\u0000`).join('');
}

/** The key of a slot: a sample name, its name labels' key, its `le` ('' for none) and placement. */
function slotKey(
  sample: string,
  labels: string,
  le: string,
  placement: SeriesPlacement
): string {
  const place =
    placement.label === 'global'
      ? 'G'
      : `${placement.label === 'host' ? 'H' : 'T'}${placement.value}`;
  return `${sample}\u0002${labels}\u0002${le}\u0002${place}`;
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
  /** A series line's text up to its value, as written → its slot, or -1 when it has none. */
  readonly _series = new Map<string, number>();
  private readonly _families = new Map<string, ExposedFamily>();

  constructor(private readonly _variant: 'host_type' | 'host') {}

  /** The families of the reads so far, with every label set and bucket bound seen. */
  get families(): ReadonlyMap<string, ExposedFamily> {
    return this._families;
  }

  /** How many slots the reads so far have named. */
  get slotCount(): number {
    return this._slots.size;
  }

  /** Starts a read that is given its text in pieces, then ended. */
  begin(startedAt: number): ExpositionParse {
    return new ExpositionParse(this, startedAt);
  }

  /** Indexes one exposition text; throws an Error naming the line that cannot be read. */
  index(text: string, startedAt: number): ExpositionRead {
    const parse = this.begin(startedAt);
    parse.write(text);
    return parse.end();
  }

  /** Declares a family from a `# TYPE` line. */
  _declare(name: string, type: string): void {
    const found = this._family(name);
    if (found.type !== type) this._families.set(name, { ...found, type });
  }

  /** The family `name`, untyped until a `# TYPE` line declares it. */
  private _family(name: string): ExposedFamily {
    let found = this._families.get(name);
    if (found === undefined) {
      found = { name, type: 'untyped', labelSets: new Map(), les: new Map() };
      this._families.set(name, found);
    }
    return found;
  }

  /**
   * Reads a series text seen for the first time: its family, name labels and bucket bound, and
   * its slot (-1 when it has no placement). Throws an Error (without the line number) when the
   * text cannot be read.
   */
  _learn(text: string, hasBrace: boolean): number {
    // Every name and label kept below is a slice of this copy, not of the chunk.
    const series = ownCopy(text);
    const brace = hasBrace ? series.indexOf('{') : -1;
    const name = brace === -1 ? series : series.slice(0, brace);
    const labels = brace === -1 ? [] : parseLabels(series.slice(brace + 1, -1));
    if (name === '' || labels === undefined) throw new Error('unreadable');
    const suffix = HISTOGRAM_SUFFIXES.find(s => name.endsWith(s));
    const base = suffix === undefined ? name : name.slice(0, -suffix.length);
    const owner =
      suffix !== undefined && this._families.get(base)?.type === 'histogram'
        ? this._families.get(base)!
        : this._family(name);
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
    const labelKey = pairsKey(named);
    const histogram = owner.type === 'histogram';
    if (histogram && name.endsWith('_bucket') && le !== '')
      owner.les.set(parseNumber(le), le);
    if (
      (!histogram || name.endsWith('_count')) &&
      !owner.labelSets.has(labelKey)
    )
      owner.labelSets.set(labelKey, Object.fromEntries(named));
    // As the reader places it: in the host variant, a series with only a host type is that host's.
    let placement: SeriesPlacement | undefined;
    if (hostType === '' && host === '') placement = { label: 'global' };
    else if (this._variant === 'host')
      placement = { label: 'host', value: host !== '' ? host : hostType };
    else if (hostType !== '')
      placement = { label: 'host_type', value: hostType };
    let slot = -1;
    if (placement !== undefined) {
      const key = slotKey(name, labelKey, le, placement);
      slot = this._slots.get(key) ?? this._slots.size;
      if (slot === this._slots.size) this._slots.set(key, slot);
    }
    this._series.set(series, slot);
    return slot;
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
    placement: SeriesPlacement
  ): number {
    const slot = this._slots.get(slotKey(sample, labels, le, placement));
    return slot === undefined ? 0 : (read.values[slot] ?? 0);
  }
}

/**
 * A copy of `text` that holds nothing else: a slice of a chunk would keep the whole chunk alive
 * for as long as the index keeps the slice.
 */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 10;
}

/** One read of an exposition into an {@link ExpositionIndex}, given its text piece by piece. */
export class ExpositionParse {
  /** The start of a line whose end has not come yet, in pieces. */
  private readonly _pending: string[] = [];
  private _lineNumber = 0;
  private _values: Float64Array;

  constructor(
    private readonly _index: ExpositionIndex,
    private readonly _startedAt: number
  ) {
    this._values = new Float64Array(Math.max(1024, _index.slotCount + 64));
  }

  /** Reads the complete lines of `text` (after what came before); throws an Error naming a line that cannot be read. */
  write(text: string): void {
    let start = 0;
    let end: number;
    while ((end = text.indexOf('\n', start)) !== -1) {
      // Only the first line can continue what came before.
      if (this._pending.length > 0) {
        this._pending.push(text.slice(0, end));
        this._pendingLine();
      } else this._line(text, start, end);
      start = end + 1;
    }
    if (start < text.length) this._pending.push(text.slice(start));
  }

  /** Reads the last line, if it has no newline, and gives the read. */
  end(): ExpositionRead {
    if (this._pending.length > 0) this._pendingLine();
    return {
      startedAt: this._startedAt,
      values: this._values.slice(0, this._index.slotCount),
    };
  }

  /** Reads the line held in pieces. */
  private _pendingLine(): void {
    const line = this._pending.join('');
    this._pending.length = 0;
    this._line(line, 0, line.length);
  }

  private _fail(text: string, start: number, end: number): never {
    throw new Error(
      `line ${this._lineNumber}: cannot read ${JSON.stringify(text.slice(start, Math.min(end, start + 200)))}`
    );
  }

  private _line(text: string, start: number, end: number): void {
    this._lineNumber++;
    while (start < end && isSpace(text.charCodeAt(start))) start++;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    if (start === end) return;
    if (text.charCodeAt(start) === 35 /* # */) {
      const type = TYPE_LINE.exec(text.slice(start, end));
      if (type !== null) this._index._declare(type[1]!, type[2]!);
      return;
    }
    let brace = text.indexOf('{', start);
    if (brace >= end) brace = -1;
    let seriesEnd: number;
    if (brace !== -1) {
      const close = text.lastIndexOf('}', end - 1);
      if (close < brace) this._fail(text, start, end);
      seriesEnd = close + 1;
    } else {
      seriesEnd = start;
      while (seriesEnd < end && !isSpace(text.charCodeAt(seriesEnd)))
        seriesEnd++;
    }
    let valueStart = seriesEnd;
    while (valueStart < end && isSpace(text.charCodeAt(valueStart)))
      valueStart++;
    let valueEnd = valueStart;
    while (valueEnd < end && !isSpace(text.charCodeAt(valueEnd))) valueEnd++;
    const value = parseNumber(text.slice(valueStart, valueEnd));
    if (valueStart === valueEnd || Number.isNaN(value))
      this._fail(text, start, end);
    const series = text.slice(start, seriesEnd);
    let slot = this._index._series.get(series);
    if (slot === undefined) {
      try {
        slot = this._index._learn(series, brace !== -1);
      } catch {
        this._fail(text, start, end);
      }
    }
    if (slot < 0) return;
    if (slot >= this._values.length) {
      const grown = new Float64Array(
        Math.max(this._values.length * 2, slot + 1)
      );
      grown.set(this._values);
      this._values = grown;
    }
    this._values[slot] = this._values[slot]! + value;
  }
}
