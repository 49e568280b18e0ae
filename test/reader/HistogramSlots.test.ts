import { HistogramSlots } from '../../src/reader/HistogramSlots';

describe('HistogramSlots', () => {
  it('should hand out room for entries one after another in a slot', () => {
    const slots = new HistogramSlots();
    expect(slots.reserve(7, 20)).toBe(0);
    expect(slots.reserve(7, 15)).toBe(20);
    expect(slots.reserve(8, 15)).toBe(0);
    expect(slots.entriesOf(7)).not.toBe(slots.entriesOf(8));
  });

  it('should copy a full slot into a longer array, leaving a frame taken before with the old one', () => {
    const slots = new HistogramSlots();
    const first = slots.reserve(3, 100);
    slots.entriesOf(3)[first] = 42;
    const before = slots.frame();
    const full = slots.entriesOf(3);
    let at = first;
    while (slots.entriesOf(3) === full) at = slots.reserve(3, 100);
    expect(at).toBeGreaterThanOrEqual(full.length - 100);
    expect(slots.entriesOf(3)[first]).toBe(42);
    expect(before.entriesOf(3)).toBe(full);
    expect(slots.frame()).not.toBe(before);
    expect(slots.frame().entriesOf(3)).toBe(slots.entriesOf(3));
  });

  it('should keep the same frame while nothing but room within an array is taken', () => {
    const slots = new HistogramSlots();
    slots.reserve(1, 13);
    const frame = slots.frame();
    slots.reserve(1, 13);
    expect(slots.frame()).toBe(frame);
  });

  it("should let a slot's array go once none of its entries is in a window", () => {
    const slots = new HistogramSlots();
    slots.reserve(1, 13);
    slots.reserve(1, 13);
    const array = slots.entriesOf(1);
    const before = slots.frame();
    slots.release(1);
    expect(slots.frame().entriesOf(1)).toBe(array);
    slots.release(1);
    expect(slots.frame().entriesOf(1)).toBeUndefined();
    expect(before.entriesOf(1)).toBe(array);
    // The slot starts afresh in an array of its own.
    expect(slots.reserve(1, 13)).toBe(0);
    expect(slots.entriesOf(1)).not.toBe(array);
  });

  it('should hold every slot of a window that spans more slots than its ring', () => {
    const slots = new HistogramSlots();
    const base = 1_700_000_000;
    const at = new Map<number, number>();
    for (let slot = base; slot < base + 300; slot++) {
      const where = slots.reserve(slot, 13);
      slots.entriesOf(slot)[where] = slot;
      at.set(slot, where);
    }
    const frame = slots.frame();
    for (const [slot, where] of at) {
      expect(slots.entriesOf(slot)[where]).toBe(slot);
      expect(frame.entriesOf(slot)[where]).toBe(slot);
    }
    // Slots released in order free their places for the slots after them.
    for (let slot = base; slot < base + 250; slot++) slots.release(slot);
    for (let slot = base + 300; slot < base + 500; slot++) {
      const where = slots.reserve(slot, 13);
      slots.entriesOf(slot)[where] = slot;
      at.set(slot, where);
    }
    for (let slot = base + 250; slot < base + 500; slot++)
      expect(slots.entriesOf(slot)[at.get(slot)!]).toBe(slot);
    // The frame taken before still reads what it held.
    for (let slot = base; slot < base + 300; slot++)
      expect(frame.entriesOf(slot)[at.get(slot)!]).toBe(slot);
  });
});
