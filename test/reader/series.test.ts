import { COPY_AT_ONCE } from '../../src/reader/columns';
import { HistogramSeries } from '../../src/reader/HistogramSeries';
import { NameTotals, SpiralSeries } from '../../src/reader/series';
import { HistogramColumns } from '../../src/reader/HistogramColumns';
import { PublishedRecords } from '../../src/reader/records';
import { SpiralColumns } from '../../src/reader/SpiralColumns';
import { ValueSeries } from '../../src/reader/ValueSeries';
import { ValueColumns } from '../../src/reader/ValueColumns';

/** Columns of their own for the value series of one test. */
function valueColumns(): ValueColumns {
  return new ValueColumns();
}

describe('SpiralSeries', () => {
  describe('publish', () => {
    it('should make a new record of its columns, leaving the previous one as it was', () => {
      const columns = new SpiralColumns(60);
      const spiral = new SpiralSeries(
        new NameTotals('spiral', true, 1, 'test'),
        0,
        1,
        columns
      );
      columns.add(spiral.number, 1, 1);
      const before = spiral.publish();
      columns.add(spiral.number, 1, 1);
      expect(before).toEqual({ count: 1, one: 1 });
      expect(spiral.publish()).toEqual({ count: 2, one: 2 });
    });
  });

  describe('recordIn', () => {
    it('should read its two numbers from a publication', () => {
      const histograms = new HistogramColumns();
      const columns = new SpiralColumns(60);
      const values = new ValueColumns();
      const spiral = new SpiralSeries(
        new NameTotals('spiral', true, 1, 'test'),
        0,
        1,
        columns
      );
      const published = () =>
        new PublishedRecords(
          columns.publish(COPY_AT_ONCE),
          values.publish(COPY_AT_ONCE),
          histograms.publish([], COPY_AT_ONCE),
          [],
          COPY_AT_ONCE
        );
      const empty = published();
      columns.add(spiral.number, 1, 3);
      expect(spiral.recordIn(empty)).toEqual({ count: 0, one: 0 });
      expect(spiral.recordIn(published())).toEqual({ count: 3, one: 3 });
    });
  });
});

describe('ValueSeries', () => {
  describe('source', () => {
    it('should keep the exact last value of a lone source, NaN and infinities included', () => {
      const gauge = new ValueSeries(
        new NameTotals('gauge', false, 1, 'test'),
        0,
        1,
        valueColumns()
      );
      const source = gauge.source();
      for (const value of [NaN, 12.5, Infinity, 1e17, 1, -0]) {
        source.set(value);
        expect(Object.is(gauge.publish(), value)).toBe(true);
      }
      expect(source.set(-0)).toBe(false);
    });

    it("should serve the sum of every source's last value and of the increases, summed afresh", () => {
      const gauge = new ValueSeries(
        new NameTotals('gauge', false, 1, 'test'),
        0,
        1,
        valueColumns()
      );
      const a = gauge.source();
      const b = gauge.source();
      a.set(10);
      b.set(5);
      expect(gauge.publish()).toBe(15);
      // Replacing a value many times leaves no residue: the sum is taken from the values as they are.
      for (let i = 0; i < 1000; i++) a.set(0.1 * i);
      a.set(0.1);
      b.set(0.2);
      expect(gauge.publish()).toBe(0.1 + 0.2);
      gauge.add(3);
      expect(gauge.publish()).toBe(0.1 + 0.2 + 3);
    });
  });

  describe('add', () => {
    it('should add increases to the exact total', () => {
      const counter = new ValueSeries(
        new NameTotals('counter', true, 1, 'test'),
        0,
        1,
        valueColumns()
      );
      expect(counter.add(5)).toBe(true);
      expect(counter.add(0)).toBe(false);
      counter.add(-2);
      expect(counter.publish()).toBe(3);
    });
  });
});

describe('HistogramSeries', () => {
  describe('publish', () => {
    it('should serve all zeros when nothing was recorded in the window', () => {
      const histogram = new HistogramSeries(
        new NameTotals('histogram', true, 1, 'test'),
        0,
        1,
        0
      );
      expect(histogram.publish().value(true)).toEqual({
        names: [
          'n',
          'mean',
          'min',
          'max',
          'median',
          '50',
          '75',
          '90',
          '95',
          '99',
          '999',
        ],
        numbers: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        integer: true,
      });
    });
  });
});
