import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ColumnRecycler } from '../../src/reader/ColumnRecycler';
import { type Column, SlicedCopies } from '../../src/reader/columns';
import { Slicer } from '../../src/reader/Slicer';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Collects until `recycler` has `count` arrays waiting (the registry's callbacks run in a task
 * after the collection), or fails after many tries.
 */
async function collectedInto(
  recycler: ColumnRecycler,
  count: number
): Promise<void> {
  // A full collection can take half a second in a worker that ran other suites; the callbacks
  // then need turns of the event loop more than more collections.
  for (let i = 0; i < 200 && recycler.waiting < count; i++) {
    if (i % 5 === 0) gc();
    await new Promise(resolve => setTimeout(resolve, 10));
  }
  expect(recycler.waiting).toBe(count);
}

/**
 * Takes one array of each shape for an owner made in a function of its own, whose locals are
 * gone once it returns, and the arrays with a WeakRef each.
 */
function publishAndDrop(
  recycler: ColumnRecycler,
  shapes: readonly Column[]
): WeakRef<Column>[] {
  recycler.startPublication();
  const arrays = shapes.map(shape => recycler.take(shape, shape.length));
  recycler.recycleWith({ figures: arrays }, arrays, {});
  return arrays.map(array => new WeakRef(array));
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

  it('should hand out the arrays of a collected owner again, and never those of one alive', async () => {
    const recycler = new ColumnRecycler();
    const shapes = [new Float64Array(1_000), new Uint8Array(1_000)];
    // An owner kept alive throughout: its arrays must never come back.
    recycler.startPublication();
    const kept = shapes.map(shape => recycler.take(shape, shape.length));
    const owner = { figures: kept };
    recycler.recycleWith(owner, kept, {});
    kept[0]!.fill(7);

    const dropped = publishAndDrop(recycler, shapes);
    await collectedInto(recycler, 2);

    recycler.startPublication();
    const again = shapes.map(shape => recycler.take(shape, shape.length));
    expect(recycler.cameBack).toBe(2);
    expect(recycler.made).toBe(4);
    expect(again[0]).toBe(dropped[0]!.deref());
    expect(again[1]).toBe(dropped[1]!.deref());
    expect(again).not.toContain(kept[0]);
    expect(again).not.toContain(kept[1]);
    // None left: the next take of the shape makes a new array.
    expect(recycler.take(shapes[0]!, 1_000)).not.toBe(again[0]);
    expect(owner.figures[0]![999]).toBe(7);
  });

  it("should keep at most four publications' arrays of a shape, and none of a shape no longer taken", async () => {
    const recycler = new ColumnRecycler();
    const shape = [new Float64Array(100)];
    // Six publications of one array each, all dropped: four come back to wait.
    for (let i = 0; i < 6; i++) publishAndDrop(recycler, shape);
    await collectedInto(recycler, 4);
    for (let i = 0; i < 20; i++) {
      gc();
      await new Promise(resolve => setTimeout(resolve, 1));
    }
    expect(recycler.waiting).toBe(4);

    // The columns grew: once a publication has taken none of the old length, those are let go.
    publishAndDrop(recycler, [new Float64Array(200)]);
    expect(recycler.waiting).toBe(4);
    publishAndDrop(recycler, [new Float64Array(200)]);
    expect(recycler.waiting).toBe(0);
    await collectedInto(recycler, 2);
    recycler.startPublication();
    const made = recycler.made;
    expect(recycler.take(new Float64Array(100), 100).length).toBe(100);
    expect(recycler.made).toBe(made + 1);
  });

  it("should take back a released publication's arrays at once, and not again once their owner is collected", async () => {
    const recycler = new ColumnRecycler();
    const shapes = [new Float64Array(1_000), new Int32Array(1_000)];
    const publication = {};
    const arrays = (() => {
      recycler.startPublication();
      const taken = shapes.map(shape => recycler.take(shape, shape.length));
      recycler.recycleWith({ figures: taken }, taken, publication);
      return taken;
    })();
    recycler.release(publication, arrays);
    expect(recycler.released).toBe(2);
    expect(recycler.waiting).toBe(2);
    // Released twice, or collected after, they would wait twice over.
    recycler.release(publication, arrays);
    for (let i = 0; i < 20; i++) {
      gc();
      await new Promise(resolve => setTimeout(resolve, 1));
    }
    expect(recycler.cameBack).toBe(0);
    expect(recycler.waiting).toBe(2);
    recycler.startPublication();
    const again = shapes.map(shape => recycler.take(shape, shape.length));
    expect(again).toEqual(arrays);
    expect(again[0]).toBe(arrays[0]);
    expect(again[1]).toBe(arrays[1]);
    expect(recycler.made).toBe(2);
  });

  it('should serve SlicedCopies: an array that came back is filled whole with the new values', async () => {
    const recycler = new ColumnRecycler();
    const column = Float64Array.from({ length: 9_000 }, (_, i) => i + 0.5);
    (() => {
      const copies = new SlicedCopies(recycler);
      const copy = copies.copyOf(column, 9_000);
      copies.owned({ copy }, copy);
      copies.copy(Slicer.unbounded());
    })();
    await collectedInto(recycler, 1);
    column.forEach((_, i) => (column[i] = -i));
    const copies = new SlicedCopies(recycler);
    const copy = copies.copyOf(column, 9_000);
    expect(recycler.made).toBe(1);
    expect(recycler.cameBack).toBe(1);
    expect(copies.copy(Slicer.unbounded())).toBe(true);
    expect(copy.subarray(0, 9_000)).toEqual(column);
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
    } finally {
      clock.mockRestore();
    }
    // The publication then takes all three from them, and makes none.
    recycler.startPublication();
    for (const shape of shapes) recycler.take(shape, shape.length);
    expect(recycler.made).toBe(6);
    expect(recycler.waiting).toBe(0);
    // Taken again: the next publication's three are made anew, quick ones in one slice.
    expect(recycler.prepare(new Slicer(2))).toBe(true);
    expect(recycler.waiting).toBe(3);
  });
});
