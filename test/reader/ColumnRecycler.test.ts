import { ColumnRecycler } from '../../src/reader/ColumnRecycler';
import type { Column } from '../../src/reader/columns';
import { Slicer } from '../../src/reader/Slicer';

/**
 * The cases that need the collector are in ColumnRecycler.collection.test.ts, in a process of
 * their own.
 */

/** Takes one array of each shape for an owner made in a function of its own. */
function publishAndDrop(
  recycler: ColumnRecycler,
  shapes: readonly Column[]
): void {
  recycler.startPublication();
  const arrays = shapes.map(shape => recycler.take(shape, shape.length));
  recycler.recycleWith({ figures: arrays }, arrays, {});
}

describe('ColumnRecycler', () => {
  it('should make new zeroed arrays of the type and length asked while none came back', () => {
    const recycler = new ColumnRecycler();
    recycler.startPublication();
    const doubles = recycler.take(new Float64Array([1, 2]), 5);
    const bytes = recycler.take(new Uint8Array(3), 7);
    expect(doubles).toEqual(new Float64Array(5));
    expect(bytes).toEqual(new Uint8Array(7));
    expect(recycler.made).toBe(2);
    expect(recycler.cameBack).toBe(0);
  });

  it('should make ready what the last publication took, each new array early in a slice', async () => {
    const recycler = new ColumnRecycler();
    const shapes = [
      new Float64Array(4_096),
      new Float64Array(4_096),
      new Uint8Array(8_192),
    ];
    publishAndDrop(recycler, shapes);
    // Nothing came back: three new arrays, each made before the slice has run a quarter of a
    // millisecond. A slice that ran longer ends before the next.
    // A clock that moves `step` at each reading.
    let now = 0;
    let step = 0;
    const clock = jest
      .spyOn(performance, 'now')
      .mockImplementation(() => (now += step));
    try {
      const slicer = new Slicer(2);
      now = 0.3;
      expect(recycler.prepare(slicer)).toBe(false);
      expect(recycler.waiting).toBe(0);
      now = 10;
      await slicer.pause();
      // Each reading 0.2 ms later: the first array is made at 0.2 ms, the next is not at 0.4.
      step = 0.2;
      expect(recycler.prepare(slicer)).toBe(false);
      expect(recycler.waiting).toBe(1);
      step = 0;
      await slicer.pause();
      // Quick ones share a slice.
      expect(recycler.prepare(slicer)).toBe(true);
      expect(recycler.waiting).toBe(3);
      // The publication then takes all three from them, and makes none.
      recycler.startPublication();
      for (const shape of shapes) recycler.take(shape, shape.length);
      expect(recycler.made).toBe(6);
      expect(recycler.waiting).toBe(0);
      // Taken again: the next publication's three are made anew, quick ones in one slice (on
      // the stopped clock: a loaded machine may take longer than the limit to make them).
      expect(recycler.prepare(new Slicer(2))).toBe(true);
      expect(recycler.waiting).toBe(3);
    } finally {
      clock.mockRestore();
    }
  });
});
