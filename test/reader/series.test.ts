import {
  HistogramSeries,
  NameTotals,
  SpiralSeries,
  ValueSeries,
  combinedValue,
  totalValue,
  type Recorded,
  type RecordReader,
} from '../../src/reader/series';

/** Reads each series' freshly published working state. */
const current: RecordReader = <R>(cell: Recorded<R>): R => cell.publish();

describe('SpiralSeries', () => {
  describe('add', () => {
    it('should count since start and keep `one` to the window', () => {
      const spiral = new SpiralSeries(
        new NameTotals('spiral', true, 1),
        0,
        1,
        0
      );
      expect(spiral.add(10, 3)).toBe(true);
      expect(spiral.add(10, 2)).toBe(false);
      expect(spiral.add(11, 1)).toBe(true);
      expect(spiral.publish()).toEqual({ count: 6, one: 6 });
    });
  });

  describe('expireThrough', () => {
    it('should drop slots up to and including the given one', () => {
      const spiral = new SpiralSeries(
        new NameTotals('spiral', true, 1),
        0,
        1,
        0
      );
      spiral.add(10, 5);
      spiral.add(11, 1);
      expect(spiral.expireThrough(9)).toBe(false);
      expect(spiral.expireThrough(10)).toBe(true);
      expect(spiral.publish()).toEqual({ count: 6, one: 1 });
      spiral.expireThrough(11);
      expect(spiral.publish()).toEqual({ count: 6, one: 0 });
    });

    it('should leave no float residue, nor NaN, in `one` when slots leave', () => {
      const spiral = new SpiralSeries(
        new NameTotals('spiral', false, 1),
        0,
        1,
        0
      );
      spiral.add(1, 0.1);
      spiral.add(2, 0.2);
      spiral.add(3, 0.3);
      spiral.expireThrough(2);
      expect(spiral.publish().one).toBe(0.3);
      spiral.add(4, 1e308);
      spiral.add(5, 1e308);
      expect(spiral.publish().one).toBe(Infinity);
      spiral.expireThrough(4);
      expect(spiral.publish().one).toBe(0.3 + 1e308);
    });
  });

  describe('publish', () => {
    it('should make a new record, leaving the previous one as it was', () => {
      const spiral = new SpiralSeries(
        new NameTotals('spiral', true, 1),
        0,
        1,
        0
      );
      spiral.add(1, 1);
      const before = spiral.publish();
      spiral.add(1, 1);
      expect(before).toEqual({ count: 1, one: 1 });
      expect(spiral.publish()).toEqual({ count: 2, one: 2 });
    });
  });
});

describe('ValueSeries', () => {
  describe('set', () => {
    it('should keep the exact last value, NaN and infinities included', () => {
      const gauge = new ValueSeries(
        'gauge',
        new NameTotals('gauge', false, 1),
        0,
        1,
        0
      );
      for (const value of [NaN, 12.5, Infinity, 1e17, 1, -0]) {
        gauge.set(value);
        expect(Object.is(gauge.publish(), value)).toBe(true);
      }
      expect(gauge.set(-0)).toBe(false);
    });
  });

  describe('add', () => {
    it('should add increases to the exact total', () => {
      const counter = new ValueSeries(
        'counter',
        new NameTotals('counter', true, 1),
        0,
        1,
        0
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
        new NameTotals('histogram', true, 1),
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

describe('combinedValue', () => {
  it('should sum the exact values of spirals of several domains', () => {
    const totals = new NameTotals('spiral', true, 1);
    const a = new SpiralSeries(totals, 0, 1, 0);
    const b = new SpiralSeries(totals, 0, 1, 1);
    a.add(1, 2);
    b.add(1, 5);
    expect(combinedValue([a, b], current, 0).numbers).toEqual([7, 7]);
  });

  it('should sum gauges before anything is sanitised, and report the oldest age', () => {
    const totals = new NameTotals('gauge', false, 1);
    const a = new ValueSeries('gauge', totals, 100, 1, 0);
    const b = new ValueSeries('gauge', totals, 500, 1, 1);
    a.set(1e308);
    b.set(1e308);
    expect(combinedValue([a, b], current, 1_000)).toEqual({
      names: ['value', 'ms_since_reset'],
      numbers: [Infinity, 900],
      integer: false,
    });
    expect(totalValue(totals, [a, b], current)).toEqual({
      names: ['value'],
      numbers: [Infinity],
      integer: false,
    });
  });
});
