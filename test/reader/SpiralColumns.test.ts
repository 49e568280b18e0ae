import { RecordTableEditor } from '../../src/reader/RecordTable';
import { Slicer } from '../../src/reader/Slicer';
import { SpiralColumns } from '../../src/reader/SpiralColumns';

/** Slots per window in these tests: the data of slot s leaves when the window ends at s + 3. */
const WINDOW_SLOTS = 3;

/** One spiral, numbered 0, with its record at places 0 and 1 of the table. */
function oneSpiral(): {
  columns: SpiralColumns;
  editor: RecordTableEditor;
  spiral: number;
} {
  const editor = new RecordTableEditor();
  const columns = new SpiralColumns(editor, WINDOW_SLOTS);
  const spiral = columns.create(editor.push(0));
  editor.push(0);
  return { columns, editor, spiral };
}

/** Adds `deltas` by slot, one slot after another from slot 1, expiring as a tick does. */
function feed(
  columns: SpiralColumns,
  spiral: number,
  deltas: readonly number[]
): void {
  deltas.forEach((delta, i) => {
    columns.expire(i + 1, Slicer.unbounded());
    columns.add(spiral, i + 1, delta);
  });
}

/** The deltas of the last `WINDOW_SLOTS` slots summed oldest first, as a sum afresh gives it. */
function oneAfresh(deltas: readonly number[]): number {
  return deltas.slice(-WINDOW_SLOTS).reduce((sum, delta) => sum + delta, 0);
}

describe('SpiralColumns', () => {
  describe('add', () => {
    it('should count since start and keep `one` to the window', () => {
      const { columns, spiral } = oneSpiral();
      columns.add(spiral, 10, 3);
      columns.add(spiral, 10, 2);
      columns.add(spiral, 11, 1);
      expect([columns.count(spiral), columns.one(spiral)]).toEqual([6, 6]);
    });

    it("should write the spiral's record into the next version of the table at once", () => {
      const { columns, editor, spiral } = oneSpiral();
      const before = editor.publish();
      columns.add(spiral, 1, 4);
      columns.add(spiral, 2, 0.5);
      const after = editor.publish();
      expect([before.get(0), before.get(1)]).toEqual([0, 0]);
      expect([after.get(0), after.get(1)]).toEqual([4.5, 4.5]);
    });

    it('should keep many spirals apart, past the first columns', () => {
      const editor = new RecordTableEditor();
      const columns = new SpiralColumns(editor, WINDOW_SLOTS);
      const spirals = Array.from({ length: 3000 }, () => {
        const spiral = columns.create(editor.push(0));
        editor.push(0);
        return spiral;
      });
      for (const spiral of spirals) columns.add(spiral, 1, spiral + 1);
      columns.expire(1 + WINDOW_SLOTS, Slicer.unbounded());
      const table = editor.publish();
      expect(spirals.map(s => columns.count(s))).toEqual(
        spirals.map(s => s + 1)
      );
      expect(spirals.every(s => columns.one(s) === 0)).toBe(true);
      expect([table.get(2 * 2999), table.get(2 * 2999 + 1)]).toEqual([3000, 0]);
    });
  });

  describe('expire', () => {
    it('should drop slots up to and including the one that leaves the window', () => {
      const { columns, editor, spiral } = oneSpiral();
      columns.add(spiral, 10, 5);
      columns.add(spiral, 11, 1);
      columns.expire(12, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(6);
      columns.expire(13, Slicer.unbounded());
      expect([columns.count(spiral), columns.one(spiral)]).toEqual([6, 1]);
      columns.expire(14, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(0);
      const table = editor.publish();
      expect([table.get(0), table.get(1)]).toEqual([6, 0]);
    });

    it('should leave no float residue, nor NaN, in `one` when slots leave', () => {
      const { columns, spiral } = oneSpiral();
      columns.add(spiral, 1, 0.1);
      columns.add(spiral, 2, 0.2);
      columns.add(spiral, 3, 0.3);
      columns.expire(2 + WINDOW_SLOTS, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(0.3);
      columns.add(spiral, 4, 1e308);
      columns.add(spiral, 5, 1e308);
      expect(columns.one(spiral)).toBe(Infinity);
      columns.expire(4 + WINDOW_SLOTS, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(1e308);
    });

    it('should sum afresh from the exact sum of the integers that came before a fraction', () => {
      const { columns, spiral } = oneSpiral();
      const deltas = [7, 2, 0.1, 0.2, 5, 4];
      deltas.forEach((delta, i) => {
        columns.expire(i + 1, Slicer.unbounded());
        columns.add(spiral, i + 1, delta);
        expect(columns.one(spiral)).toBe(oneAfresh(deltas.slice(0, i + 1)));
      });
      // Once the fractions have left, the running sum takes over again, and stays exact.
      for (let slot = 7; slot <= 12; slot++) {
        columns.expire(slot, Slicer.unbounded());
        columns.add(spiral, slot, 1);
      }
      const count = [...deltas, 1, 1, 1, 1, 1, 1].reduce((a, b) => a + b, 0);
      expect([columns.count(spiral), columns.one(spiral)]).toEqual([count, 3]);
    });

    it('should keep `one` exact when an integer sum passes 2^53', () => {
      const { columns, spiral } = oneSpiral();
      const deltas = [2 ** 53 - 1, 2, 3];
      feed(columns, spiral, deltas);
      expect(columns.one(spiral)).toBe(oneAfresh(deltas));
      columns.expire(4, Slicer.unbounded());
      // A running difference would give 2^53 - (2^53 - 1) + 3 = 4.
      expect(columns.one(spiral)).toBe(5);
    });

    it('should take negative increases, as a cluster worker may report them', () => {
      const { columns, spiral } = oneSpiral();
      const deltas = [4, -1, 2, 0.5];
      feed(columns, spiral, deltas);
      expect(columns.one(spiral)).toBe(oneAfresh(deltas));
      columns.expire(5, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(2.5);
      columns.expire(6, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(0.5);
    });

    it('should resume where a slice ended, with the same result', () => {
      const editor = new RecordTableEditor();
      const sliced = new SpiralColumns(editor, WINDOW_SLOTS);
      const whole = new SpiralColumns(new RecordTableEditor(), WINDOW_SLOTS);
      for (const columns of [sliced, whole])
        for (let i = 0; i < 10; i++) {
          const spiral = columns.create(2 * i);
          columns.add(spiral, 1, i + 1);
          columns.add(spiral, 2, 0.5);
        }
      const slicer = new Slicer(Infinity, 3);
      let slices = 1;
      while (!sliced.expire(5, slicer)) slices++;
      whole.expire(5, Slicer.unbounded());
      expect(slices).toBeGreaterThan(3);
      for (let i = 0; i < 10; i++) {
        expect(sliced.one(i)).toBe(0);
        expect(whole.one(i)).toBe(0);
        expect(sliced.count(i)).toBe(i + 1.5);
      }
    });
  });
});
