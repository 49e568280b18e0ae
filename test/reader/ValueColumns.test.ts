import { COPY_AT_ONCE } from '../../src/reader/columns';
import { NameTotals, type LastValueRule } from '../../src/reader/series';
import { CountingSlicer, Slicer } from '../../src/reader/Slicer';
import { ValueColumns } from '../../src/reader/ValueColumns';
import { ValueSeries } from '../../src/reader/ValueSeries';

/** Columns and a gauge series of a name combined by `rule`. */
function gauge(rule: LastValueRule = 'sum') {
  const columns = new ValueColumns();
  const totals = new NameTotals('gauge', false, 1, 'test');
  totals.lastValues = rule;
  const series = new ValueSeries(totals, 0, 1, columns);
  return { columns, series };
}

/** Settles and copies the columns, as a publication does. */
function published(columns: ValueColumns) {
  expect(columns.settle(Slicer.unbounded())).toBe(true);
  return columns.publish(COPY_AT_ONCE);
}

describe('ValueColumns', () => {
  describe('set', () => {
    it("should serve a lone source's value from the next copy, leaving copies made before alone", () => {
      const { columns, series } = gauge();
      series.source();
      const before = published(columns);
      expect(columns.set(series.number, 0, 7)).toBe(true);
      expect(columns.set(series.number, 0, 7)).toBe(false);
      expect(before.value(series.number)).toBe(0);
      expect(published(columns).value(series.number)).toBe(7);
      expect(before.value(series.number)).toBe(0);
    });

    it('should serve the sources of a shared series combined, as settled at the publication', () => {
      const { columns, series } = gauge();
      series.source();
      columns.set(series.number, 0, 7);
      const lone = published(columns);
      const second = series.source();
      expect(second.binding).toBe(second);
      expect(columns.set(series.number, 0, 8)).toBe(true);
      expect(second.set(2)).toBe(true);
      expect(second.set(2)).toBe(false);
      expect(columns.value(series.number)).toBe(10);
      const shared = published(columns);
      expect(shared.value(series.number)).toBe(10);
      expect(lone.value(series.number)).toBe(7);
      second.set(5);
      expect(published(columns).value(series.number)).toBe(13);
      expect(shared.value(series.number)).toBe(10);
    });

    it('should serve a series that became shared by its rule from the first publication after', () => {
      const { columns, series } = gauge('max');
      series.source();
      columns.set(series.number, 0, 4);
      series.source();
      // The second source counts only once it reports: the max is still the first one's value.
      expect(published(columns).value(series.number)).toBe(4);
      columns.set(series.number, 1, 9);
      expect(published(columns).value(series.number)).toBe(9);
      columns.forget(series.number, 1);
      expect(published(columns).value(series.number)).toBe(4);
    });

    it('should add the increases of an up-down counter of the same name to the last values', () => {
      const { columns, series } = gauge();
      series.source();
      series.source();
      columns.set(series.number, 0, 1);
      columns.set(series.number, 1, 2);
      columns.add(series.number, 0.5);
      expect(published(columns).value(series.number)).toBe(3.5);
    });

    it('should settle in slices, each shared series once however often it changed', () => {
      const columns = new ValueColumns();
      const totals = new NameTotals('gauge', false, 1, 'test');
      const all = Array.from({ length: 5 }, () => {
        const series = new ValueSeries(totals, 0, 1, columns);
        series.source();
        series.source();
        return series;
      });
      for (const [i, series] of all.entries()) {
        columns.set(series.number, 0, i);
        columns.set(series.number, 1, i);
        columns.set(series.number, 1, 10 * i);
      }
      const slicer = new CountingSlicer(2);
      let slices = 1;
      while (!columns.settle(slicer)) slices++;
      // Five series in slices of two points each.
      expect(slices).toBe(3);
      const figures = columns.publish(COPY_AT_ONCE);
      expect(all.map(series => figures.value(series.number))).toEqual([
        0, 11, 22, 33, 44,
      ]);
    });
  });

  describe('forget', () => {
    it("should count a lone source's value 0 again", () => {
      const { columns, series } = gauge();
      const source = series.source();
      expect(source.binding).toBe(series.number);
      columns.set(series.number, 0, 7);
      columns.add(series.number, 2);
      expect(columns.forget(series.number, 0)).toBe(true);
      expect(columns.forget(series.number, 0)).toBe(false);
      expect(published(columns).value(series.number)).toBe(2);
    });
  });

  describe('add', () => {
    it('should keep many series apart, past the first columns', () => {
      const columns = new ValueColumns();
      const totals = new NameTotals('counter', true, 1, 'test');
      const all = Array.from(
        { length: 3000 },
        () => new ValueSeries(totals, 0, 1, columns)
      );
      all.forEach((series, i) => columns.add(series.number, i - 1000));
      const figures = published(columns);
      expect(all.map(series => figures.value(series.number))).toEqual(
        all.map((_, i) => i - 1000)
      );
    });
  });
});
