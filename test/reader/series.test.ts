import {
  HistogramSeries,
  NameTotals,
  SpiralSeries,
  ValueSeries,
  combinedValue,
} from '../../src/reader/series';

const numbers = (
  series: { value(now: number): { numbers: readonly number[] } },
  now = 0
) => series.value(now).numbers;

describe('SpiralSeries', () => {
  it('should count since start and keep `one` to the window', () => {
    const totals = new NameTotals('spiral', true);
    const spiral = new SpiralSeries(totals, 0);
    expect(spiral.add(10, 3)).toBe(true);
    expect(spiral.add(10, 2)).toBe(false);
    expect(spiral.add(11, 1)).toBe(true);
    expect(numbers(spiral)).toEqual([6, 6]);
    // With a 60-slot window, slot 10 leaves when the window ends at slot 70.
    expect(spiral.expireThrough(9)).toBe(false);
    expect(spiral.expireThrough(10)).toBe(true);
    expect(numbers(spiral)).toEqual([6, 1]);
    spiral.expireThrough(11);
    expect(numbers(spiral)).toEqual([6, 0]);
    expect(totals.total().numbers).toEqual([6, 0]);
  });

  it('should ignore zero deltas', () => {
    const spiral = new SpiralSeries(new NameTotals('spiral', true), 0);
    const before = spiral.version;
    expect(spiral.add(1, 0)).toBe(false);
    expect(spiral.version).toBe(before);
  });

  it('should leave no float residue in `one` when fractional deltas expire', () => {
    const spiral = new SpiralSeries(new NameTotals('spiral', false), 0);
    spiral.add(1, 0.1);
    spiral.add(2, 0.2);
    spiral.add(3, 0.3);
    spiral.expireThrough(2);
    expect(spiral.one).toBe(0.3);
    spiral.expireThrough(3);
    expect(spiral.one).toBe(0);
  });
});

describe('ValueSeries', () => {
  it('should report its value and the ms since the series was created', () => {
    const totals = new NameTotals('counter', true);
    const counter = new ValueSeries('counter', totals, 1_000);
    counter.adjust(5);
    counter.adjust(-2);
    expect(counter.value(4_500)).toEqual({
      names: ['value', 'ms_since_reset'],
      numbers: [3, 3_500],
    });
    expect(totals.total()).toEqual({ names: ['value'], numbers: [3] });
  });

  it('should truncate integer instruments and keep doubles', () => {
    const int = new ValueSeries('gauge', new NameTotals('gauge', true), 0);
    const double = new ValueSeries('gauge', new NameTotals('gauge', false), 0);
    int.adjust(2.9);
    double.adjust(2.5);
    expect(numbers(int)[0]).toBe(2);
    expect(numbers(double)[0]).toBe(2.5);
  });

  it('should never serve a non-finite number', () => {
    const gauge = new ValueSeries('gauge', new NameTotals('gauge', false), 0);
    gauge.adjust(Infinity);
    expect(numbers(gauge)[0]).toBe(Number.MAX_VALUE);
    gauge.adjust(-Infinity);
    expect(numbers(gauge)[0]).toBe(0);
  });
});

describe('HistogramSeries', () => {
  it('should serve all zeros when nothing was recorded in the window', () => {
    const histogram = new HistogramSeries(new NameTotals('histogram', true), 0);
    expect(histogram.value()).toEqual({
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
    });
  });
});

describe('combinedValue', () => {
  it('should sum spirals of several domains', () => {
    const totals = new NameTotals('spiral', true);
    const a = new SpiralSeries(totals, 0);
    const b = new SpiralSeries(totals, 0);
    a.add(1, 2);
    b.add(1, 5);
    expect(combinedValue([a, b], 0).numbers).toEqual([7, 7]);
  });

  it('should sum gauges and report the oldest age', () => {
    const totals = new NameTotals('gauge', true);
    const a = new ValueSeries('gauge', totals, 100);
    const b = new ValueSeries('gauge', totals, 500);
    a.adjust(1);
    b.adjust(2);
    expect(combinedValue([a, b], 1_000).numbers).toEqual([3, 900]);
  });
});
