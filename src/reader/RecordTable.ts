/*
 * The published records of every series, as a persistent vector: a 32-way trie whose versions
 * share every node that did not change between them. Publishing a version copies only the paths
 * to the records replaced since the last one (each node at most once per version), so a tick
 * costs what changed, not what exists, and each snapshot owns its version outright: it never
 * changes, and it is garbage as soon as no snapshot holds it.
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

interface TrieNode {
  /** The editor that may still change this node in place: only ever one not yet published. */
  readonly owner: object;
  readonly items: unknown[];
}

/** One published version of the table: read-only. */
export class RecordTable {
  constructor(
    private readonly _root: TrieNode,
    private readonly _shift: number,
    /** How many records the table holds. */
    readonly size: number
  ) {}

  /** The record at `index` (below {@link size}). */
  get(index: number): unknown {
    let node = this._root;
    for (let shift = this._shift; shift > 0; shift -= BITS)
      node = node.items[(index >>> shift) & MASK] as TrieNode;
    return node.items[index & MASK];
  }
}

/** Builds the next version of a table: changes made here are invisible to every published version. */
export class RecordTableEditor {
  private _owner: object = {};
  private _root: TrieNode;
  private _shift: number;
  private _size: number;

  constructor() {
    this._root = { owner: this._owner, items: [] };
    this._shift = 0;
    this._size = 0;
  }

  get size(): number {
    return this._size;
  }

  /** The record at `index` as this editor has it. */
  get(index: number): unknown {
    let node = this._root;
    for (let shift = this._shift; shift > 0; shift -= BITS)
      node = node.items[(index >>> shift) & MASK] as TrieNode;
    return node.items[index & MASK];
  }

  /** Replaces the record at `index` (below {@link size}). */
  set(index: number, record: unknown): void {
    this._leaf(index).items[index & MASK] = record;
  }

  /** Appends a record; returns its index. */
  push(record: unknown): number {
    const index = this._size;
    if (index === 1 << (this._shift + BITS)) {
      // Full at this depth: the old root becomes the first child of a new one.
      this._root = { owner: this._owner, items: [this._root] };
      this._shift += BITS;
    }
    this._size++;
    this.set(index, record);
    return index;
  }

  /** Publishes what was built: later changes through this editor copy what they touch. */
  publish(): RecordTable {
    const table = new RecordTable(this._root, this._shift, this._size);
    this._owner = {};
    return table;
  }

  /** The leaf that holds `index`, owned by this editor: the path to it is copied where shared. */
  private _leaf(index: number): TrieNode {
    let node = (this._root = this._own(this._root));
    for (let shift = this._shift; shift > 0; shift -= BITS) {
      const at = (index >>> shift) & MASK;
      const child = node.items[at] as TrieNode | undefined;
      const owned =
        child === undefined
          ? { owner: this._owner, items: [] }
          : this._own(child);
      node.items[at] = owned;
      node = owned;
    }
    return node;
  }

  private _own(node: TrieNode): TrieNode {
    return node.owner === this._owner
      ? node
      : { owner: this._owner, items: node.items.slice() };
  }
}
