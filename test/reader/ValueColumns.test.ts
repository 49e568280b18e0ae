import { RecordTableEditor } from '../../src/reader/RecordTable';
import { NameTotals, type Series } from '../../src/reader/series';
import { ValueColumns } from '../../src/reader/ValueColumns';
import { ValueSeries } from '../../src/reader/ValueSeries';

/** Columns, the series marked changed through them, and a gauge series with its record at 0. */
function gauge() {
  const editor = new RecordTableEditor();
  const changed: Series[] = [];
  const columns = new ValueColumns(editor, series => changed.push(series));
  const series = new ValueSeries(
    new NameTotals('gauge', false, 1, 'test'),
    0,
    1,
    editor.size,
    columns
  );
  series.appendRecord(editor);
  return { editor, changed, columns, series };
}

describe('ValueColumns', () => {
  describe('set', () => {
    it("should write a lone source's value into the next version of the table at once", () => {
      const { editor, changed, columns, series } = gauge();
      series.source();
      const before = editor.publish();
      expect(columns.set(series.number, 0, 7)).toBe(true);
      expect(columns.set(series.number, 0, 7)).toBe(false);
      expect(before.get(series.index)).toBe(0);
      expect(editor.publish().get(series.index)).toBe(7);
      expect(changed).toEqual([]);
    });

    it('should mark a series of two sources changed instead, its record made at the tick’s end', () => {
      const { editor, changed, columns, series } = gauge();
      series.source();
      columns.set(series.number, 0, 7);
      const second = series.source();
      expect(second.binding).toBe(second);
      expect(columns.set(series.number, 0, 8)).toBe(true);
      expect(second.set(2)).toBe(true);
      expect(changed).toEqual([series, series]);
      expect(editor.publish().get(series.index)).toBe(7);
      expect(columns.value(series.number)).toBe(10);
    });
  });

  describe('forget', () => {
    it("should count a lone source's value 0 again, and write the record", () => {
      const { editor, columns, series } = gauge();
      const source = series.source();
      expect(source.binding).toBe(series.number);
      columns.set(series.number, 0, 7);
      columns.add(series.number, 2);
      expect(columns.forget(series.number, 0)).toBe(true);
      expect(columns.forget(series.number, 0)).toBe(false);
      expect(editor.publish().get(series.index)).toBe(2);
    });
  });

  describe('add', () => {
    it('should keep many series apart, past the first columns', () => {
      const editor = new RecordTableEditor();
      const columns = new ValueColumns(editor, () => undefined);
      const totals = new NameTotals('counter', true, 1, 'test');
      const all = Array.from({ length: 3000 }, () => {
        const series = new ValueSeries(totals, 0, 1, editor.size, columns);
        series.appendRecord(editor);
        return series;
      });
      all.forEach((series, i) => columns.add(series.number, i - 1000));
      const table = editor.publish();
      expect(all.map(series => table.get(series.index))).toEqual(
        all.map((_, i) => i - 1000)
      );
    });
  });
});
