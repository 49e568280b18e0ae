import { COPY_AT_ONCE } from '../../src/reader/columns';
import { CountingSlicer, Slicer } from '../../src/reader/Slicer';
import { SpiralColumns } from '../../src/reader/SpiralColumns';

/** Slots per window in these tests: the data of slot s leaves when the window ends at s + 3. */
const WINDOW_SLOTS = 3;

/** One spiral, numbered 0. */
function oneSpiral(): { columns: SpiralColumns; spiral: number } {
  const columns = new SpiralColumns(WINDOW_SLOTS);
  return { columns, spiral: columns.create() };
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

    it('should publish copies of `count` and `one` that later changes leave alone', () => {
      const { columns, spiral } = oneSpiral();
      const before = columns.publish(COPY_AT_ONCE);
      columns.add(spiral, 1, 4);
      columns.add(spiral, 2, 0.5);
      const after = columns.publish(COPY_AT_ONCE);
      columns.add(spiral, 3, 1);
      columns.expire(1 + WINDOW_SLOTS, Slicer.unbounded());
      expect([before.count(spiral), before.one(spiral)]).toEqual([0, 0]);
      expect([after.count(spiral), after.one(spiral)]).toEqual([4.5, 4.5]);
      expect([columns.count(spiral), columns.one(spiral)]).toEqual([5.5, 1.5]);
    });

    it('should keep many spirals apart, past the first columns', () => {
      const columns = new SpiralColumns(WINDOW_SLOTS);
      const spirals = Array.from({ length: 3000 }, () => columns.create());
      for (const spiral of spirals) columns.add(spiral, 1, spiral + 1);
      const full = columns.publish(COPY_AT_ONCE);
      columns.expire(1 + WINDOW_SLOTS, Slicer.unbounded());
      const expired = columns.publish(COPY_AT_ONCE);
      expect(spirals.map(s => expired.count(s))).toEqual(
        spirals.map(s => s + 1)
      );
      expect(spirals.every(s => expired.one(s) === 0)).toBe(true);
      expect(spirals.map(s => full.one(s))).toEqual(spirals.map(s => s + 1));
    });
  });

  describe('expire', () => {
    it('should drop slots up to and including the one that leaves the window', () => {
      const { columns, spiral } = oneSpiral();
      columns.add(spiral, 10, 5);
      columns.add(spiral, 11, 1);
      columns.expire(12, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(6);
      columns.expire(13, Slicer.unbounded());
      expect([columns.count(spiral), columns.one(spiral)]).toEqual([6, 1]);
      columns.expire(14, Slicer.unbounded());
      expect(columns.one(spiral)).toBe(0);
      const figures = columns.publish(COPY_AT_ONCE);
      expect([figures.count(spiral), figures.one(spiral)]).toEqual([6, 0]);
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
      const sliced = new SpiralColumns(WINDOW_SLOTS);
      const whole = new SpiralColumns(WINDOW_SLOTS);
      for (const columns of [sliced, whole])
        for (let i = 0; i < 10; i++) {
          const spiral = columns.create();
          columns.add(spiral, 1, i + 1);
          columns.add(spiral, 2, 0.5);
        }
      const slicer = new CountingSlicer(3);
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
