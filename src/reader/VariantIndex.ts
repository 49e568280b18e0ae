import { groupAlias } from '../route/legacyRoute';
import type { SortedNames } from '../snapshot/Snapshot';
import type { Series } from './series';

/*
 * The index only grows: groups, names and series are added, never removed. Each entry carries
 * the generation in which it appeared, so a snapshot sees the index as of its own generation by
 * skipping what came later, and nothing has to be copied when a tick adds to it.
 */

/**
 * The series served under one legacy name of a group: one series, or several when the domains
 * of one host type are summed, oldest first. A lone series is stored as itself, without an
 * array around it.
 */
export type Members = Series | readonly Series[];

/** The members of `members` that a snapshot of generation `gen` sees (possibly none). */
export function visibleMembers(
  members: Members,
  gen: number
): readonly Series[] {
  if (!Array.isArray(members)) {
    const series = members as Series;
    return series.since <= gen ? [series] : [];
  }
  const list = members as readonly Series[];
  if (list.length === 0 || list[list.length - 1]!.since <= gen) return list;
  return list.filter(series => series.since <= gen);
}

/** A host type, a host, or the global group: the legacy metrics served under one URL. */
export class Group {
  /** Legacy name → the series that make it up. */
  readonly members = new Map<string, Members>();
  constructor(
    readonly name: string,
    /** The generation in which the group appeared. */
    readonly since: number
  ) {}

  /** Adds `series` to the members of `name`. */
  addMember(name: string, series: Series): void {
    const members = this.members.get(name);
    if (members === undefined) this.members.set(name, series);
    else if (!Array.isArray(members))
      this.members.set(name, [members as Series, series]);
    else (members as Series[]).push(series);
  }
}

const byCodePoint = (a: string, b: string): number =>
  a < b ? -1 : a > b ? 1 : 0;
const singlePart = (name: string): boolean => !name.includes('.');

/** The groups of one variant of the API. */
export class VariantIndex {
  readonly groups = new Map<string, Group>();
  readonly global = new Group('global', 0);
  /**
   * Names that appear in any non-global group, each with its first series there: its kind, age
   * and generation are the name's, for the groups that have no data for it yet.
   */
  readonly catalog = new Map<string, Series>();
  /** `test_type` → `test type`: host types with spaces are also reachable with underscores. */
  readonly aliases = new Map<string, string>();
  /** The generation of the last tick that added a group or a name, so listings are sorted once per change. */
  structureGen = 0;

  private _sorted: SortedNames | undefined;
  private _sortedStructure = -1;

  constructor(readonly declared: readonly string[]) {
    for (const name of declared) this.group(name, 0);
  }

  /**
   * The sorted names as a snapshot of generation `gen` sees them; `structureGen` is the index's
   * as it was when that snapshot was published.
   */
  sortedNames(gen: number, structureGen: number): SortedNames {
    if (this._sorted !== undefined && this._sortedStructure === structureGen)
      return this._sorted;
    const declared = new Set(this.declared);
    const discovered: string[] = [];
    for (const group of this.groups.values())
      if (group.since <= gen && !declared.has(group.name))
        discovered.push(group.name);
    discovered.sort(byCodePoint);
    const catalog: string[] = [];
    for (const [name, entry] of this.catalog)
      if (entry.since <= gen) catalog.push(name);
    catalog.sort(byCodePoint);
    const global: string[] = [];
    for (const [name, members] of this.global.members)
      if (visibleMembers(members, gen).length > 0) global.push(name);
    global.sort(byCodePoint);
    const sorted: SortedNames = Object.freeze({
      groups: Object.freeze([...this.declared, ...discovered]),
      catalog,
      global,
      listedCatalog: catalog.filter(singlePart),
      listedGlobal: global.filter(singlePart),
    });
    // Only the newest structure is worth keeping: older snapshots are rarely asked again.
    if (structureGen === this.structureGen) {
      this._sorted = sorted;
      this._sortedStructure = structureGen;
    }
    return sorted;
  }

  /** The group named `name`, added in generation `gen` if new. */
  group(name: string, gen: number): Group {
    // Asked for every new series: found without making a closure.
    return this.groups.get(name) ?? this._newGroup(name, gen);
  }

  private _newGroup(name: string, gen: number): Group {
    if (name.includes(' ')) {
      const alias = groupAlias(name);
      if (!this.aliases.has(alias)) this.aliases.set(alias, name);
    }
    this.structureGen = gen;
    const group = new Group(name, gen);
    this.groups.set(name, group);
    return group;
  }

  /** A group by its URL segment as of generation `gen`: the exact name first, then the underscore spelling. */
  lookup(segment: string, gen: number): Group | undefined {
    const group = this.groups.get(segment);
    if (group !== undefined && group.since <= gen) return group;
    const name = this.aliases.get(segment);
    if (name === undefined) return undefined;
    const aliased = this.groups.get(name);
    return aliased !== undefined && aliased.since <= gen ? aliased : undefined;
  }
}
