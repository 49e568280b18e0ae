import { withRoom } from './columns';
import type { SlotEntries } from './slotEntries';

/** How many slots a name's ring holds at first: a 60-slot window and a few slots to spare. */
const INITIAL_RING = 64;

/** The room a name's first slot gets, in numbers: a few dozen entries. */
const INITIAL_ROOM = 1024;

/**
 * The entries of every window of one histogram name, by slot: each slot's entries in one typed
 * array, written one after another as the series of the name get data in that slot. A tick
 * thus writes its histogram points side by side, and expires a slot's entries side by side,
 * where an array per window would be read at a place of its own for each; and a slot's array,
 * off the collector's heap, goes whole once none of its entries is in a window any more.
 *
 * Entries are never changed once written but for their link to the entry after (see
 * `slotEntries.ts`), which no published record reads. An array that fills is copied into a
 * longer one; the records made before keep the old one, which holds all they read.
 *
 * The slots' arrays are kept in a ring, by slot modulo its length: a window spans fewer slots
 * than the ring (it doubles if not), so a slot's place is free again once the slot has left every
 * window.
 */
export class HistogramSlots {
  /** By place in the ring: the slot held there, its entries, where they end, how many are in a window. */
  private _slots: number[] = [];
  private _arrays: (SlotEntries | undefined)[] = [];
  private _ends: number[] = [];
  private _live: number[] = [];
  private _mask = INITIAL_RING - 1;
  /** The place of the slot started last. */
  private _newest = -1;
  /** How long the entries of the slot before the newest came to: the room a new slot's array gets. */
  private _lastLength = INITIAL_ROOM;
  /** The ring as published records read it, made when first asked after a change. */
  private _frame: SlotFrame | undefined = undefined;
  /** The first slot the name saw, NaN before it. */
  private _base = NaN;

  constructor() {
    this._resize(INITIAL_RING);
  }

  /**
   * `slot` counted from the name's first slot: what its windows, their entries and their records
   * keep, and every other method here takes. Small integers, where a slot counted from the epoch
   * would take a number of its own on the heap for each field that holds one.
   */
  local(slot: number): number {
    if (Number.isNaN(this._base)) this._base = slot;
    return (slot - this._base) | 0;
  }

  /** The entries of `slot`, which has entries in a window. */
  entriesOf(slot: number): SlotEntries {
    return this._arrays[slot & this._mask]!;
  }

  /**
   * Makes room for an entry of `length` numbers in `slot`, counted as in a window; returns where
   * it starts in {@link entriesOf}(slot), which may be a new array.
   */
  reserve(slot: number, length: number): number {
    let place = slot & this._mask;
    if (this._slots[place] !== slot || this._arrays[place] === undefined) {
      if (this._live[place]! > 0) {
        // A window spans as many slots as the ring: twice as many places.
        this._resize(2 * this._arrays.length);
        return this.reserve(slot, length);
      }
      this._start(place, slot, length);
      place = slot & this._mask;
    }
    // Integers throughout: an offset kept in a series' field would otherwise take a number box.
    const at = this._ends[place]! | 0;
    const end = (at + length) | 0;
    if (end > this._arrays[place]!.length) this._enlarge(place, end);
    this._ends[place] = end;
    this._live[place]!++;
    return at;
  }

  /** One entry of `slot` has left its window: the slot's array goes once none is left in one. */
  release(slot: number): void {
    const place = slot & this._mask;
    if (--this._live[place]! > 0) return;
    this._arrays[place] = undefined;
    this._ends[place] = 0;
    this._frame = undefined;
  }

  /** The slots' arrays as they are now, for records to read: the same object until they change. */
  frame(): SlotFrame {
    return (this._frame ??= new SlotFrame(this._arrays.slice(), this._mask));
  }

  private _start(place: number, slot: number, length: number): void {
    const newest = this._newest;
    if (newest >= 0 && this._arrays[newest] !== undefined)
      this._lastLength = this._ends[newest]!;
    const room = this._lastLength + (this._lastLength >> 2);
    this._slots[place] = slot;
    this._arrays[place] = new Float64Array(Math.max(room, 2 * length));
    this._ends[place] = 0;
    this._live[place] = 0;
    this._newest = place;
    this._frame = undefined;
  }

  private _enlarge(place: number, end: number): void {
    this._arrays[place] = withRoom(this._arrays[place]!, end);
    this._frame = undefined;
  }

  /** Makes the ring `size` places long (a power of two), each array at its slot's new place. */
  private _resize(size: number): void {
    const slots = this._slots;
    const arrays = this._arrays;
    const ends = this._ends;
    const live = this._live;
    const newestSlot = this._newest < 0 ? undefined : slots[this._newest];
    this._slots = new Array<number>(size).fill(0);
    this._arrays = new Array<SlotEntries | undefined>(size).fill(undefined);
    this._ends = new Array<number>(size).fill(0);
    this._live = new Array<number>(size).fill(0);
    this._mask = size - 1;
    this._newest = -1;
    for (let place = 0; place < arrays.length; place++) {
      const entries = arrays[place];
      if (entries === undefined) continue;
      const slot = slots[place]!;
      const to = slot & this._mask;
      this._slots[to] = slot;
      this._arrays[to] = entries;
      this._ends[to] = ends[place]!;
      this._live[to] = live[place]!;
      if (slot === newestSlot) this._newest = to;
    }
    this._frame = undefined;
  }
}

/** A name's slots' arrays at one moment, as a published record reads them: never changed. */
export class SlotFrame {
  constructor(
    private readonly _arrays: readonly (SlotEntries | undefined)[],
    private readonly _mask: number
  ) {}

  /** The entries of `slot`, which the record that holds the frame reads. */
  entriesOf(slot: number): SlotEntries {
    return this._arrays[slot & this._mask]!;
  }
}

/** The frame of a name without slots. */
export const EMPTY_FRAME = new SlotFrame([], 0);
