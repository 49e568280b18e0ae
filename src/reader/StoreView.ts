import type { Variant } from '../attributes';
import { zeroValue, type LegacyValue } from '../snapshot/legacyValues';
import type { SnapshotContent, SortedNames } from '../snapshot/Snapshot';
import { combinedValue, totalValue } from './combining';
import type { PublishedRecords, Recorded, RecordReader } from './records';
import type { NameTotals } from './series';
import { visibleMembers, type VariantIndex } from './VariantIndex';

/** What a view reads of the store besides the records: the parts that only grow. */
export interface StoreIndex {
  readonly views: Readonly<Record<Variant, VariantIndex>>;
  readonly totals: ReadonlyMap<string, NameTotals>;
  readonly allMetricsAreGlobal: boolean;
}

/**
 * The store as of one generation: the content of one snapshot. It reads the index as of its
 * generation (entries that appeared later are skipped) and the records from its own publication
 * (copies of the columns, the histogram names' sums), so its answers never change.
 */
export class StoreView implements SnapshotContent {
  private readonly _names: Partial<Record<Variant, SortedNames>> = {};
  private readonly _structure: Record<Variant, number>;

  constructor(
    private readonly _index: StoreIndex,
    private readonly _published: PublishedRecords,
    readonly generation: number,
    /** The wall-clock time the content stands for. */
    readonly timeMs: number,
    /** The same moment on the monotonic clock: ages (`ms_since_reset`) are measured to it. */
    private readonly _monotonicMs: number
  ) {
    this._structure = {
      host_type: _index.views.host_type.structureGen,
      host: _index.views.host.structureGen,
    };
  }

  get allMetricsAreGlobal(): boolean {
    return this._index.allMetricsAreGlobal;
  }

  /**
   * Gives the arrays of this view's publication to the next ones: only once nothing will read
   * this view again.
   */
  release(): void {
    this._published.release();
  }

  /** A record as of this view's generation. */
  readonly read: RecordReader = <R>(cell: Recorded<R>): R =>
    cell.recordIn(this._published);

  names(variant: Variant): SortedNames {
    return (this._names[variant] ??= this._index.views[variant].sortedNames(
      this.generation,
      this._structure[variant]
    ));
  }

  group(variant: Variant, segment: string): string | undefined {
    return this._index.views[variant].lookup(segment, this.generation)?.name;
  }

  value(
    variant: Variant,
    group: string | undefined,
    name: string
  ): LegacyValue | undefined {
    const view = this._index.views[variant];
    const found =
      group === undefined ? view.global : view.lookup(group, this.generation);
    if (found === undefined) return undefined;
    const members = found.members.get(name);
    if (members !== undefined) {
      const visible = visibleMembers(members, this.generation);
      if (visible.length > 0)
        return combinedValue(visible, this.read, this._monotonicMs);
    }
    if (group === undefined) return undefined;
    const entry = view.catalog.get(name);
    return entry === undefined || entry.since > this.generation
      ? undefined
      : zeroValue(
          entry.totals.kind,
          Math.max(0, this._monotonicMs - entry.createdAtMonotonicMs)
        );
  }

  total(name: string): LegacyValue | undefined {
    const totals = this._index.totals.get(name);
    if (totals === undefined || totals.since > this.generation)
      return undefined;
    const members = visibleMembers(totals.members, this.generation);
    return members.length === 0
      ? undefined
      : totalValue(totals, members, this.read);
  }
}
