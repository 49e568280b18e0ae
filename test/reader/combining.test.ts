import { combinedValue, totalValue } from '../../src/reader/combining';
import type { Recorded, RecordReader } from '../../src/reader/records';
import { NameTotals, SpiralSeries } from '../../src/reader/series';
import { SpiralColumns } from '../../src/reader/SpiralColumns';
import { ValueSeries } from '../../src/reader/ValueSeries';
import { ValueColumns } from '../../src/reader/ValueColumns';

/** Columns of their own for the value series of one test. */
function valueColumns(): ValueColumns {
  return new ValueColumns();
}

/** Reads each series' freshly published working state. */
const current: RecordReader = <R>(cell: Recorded<R>): R => cell.publish();

describe('combinedValue', () => {
  it('should sum the exact values of spirals of several domains', () => {
    const totals = new NameTotals('spiral', true, 1, 'test');
    const columns = new SpiralColumns(60);
    const a = new SpiralSeries(totals, 0, 1, columns);
    const b = new SpiralSeries(totals, 0, 1, columns);
    columns.add(a.number, 1, 2);
    columns.add(b.number, 1, 5);
    expect(combinedValue([a, b], current, 0).numbers).toEqual([7, 7]);
  });

  it('should sum gauges before anything is sanitised, and report the oldest age', () => {
    const totals = new NameTotals('gauge', false, 1, 'test');
    const a = new ValueSeries(totals, 100, 1, valueColumns());
    const b = new ValueSeries(totals, 500, 1, valueColumns());
    a.source().set(1e308);
    b.source().set(1e308);
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
