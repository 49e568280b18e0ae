import { NameTotals, type LastValueRule } from '../../src/reader/series';
import { ValueSeries } from '../../src/reader/ValueSeries';
import { ValueColumns } from '../../src/reader/ValueColumns';

/** Columns of their own for the value series of one test. */
function valueColumns(): ValueColumns {
  return new ValueColumns();
}

/** A gauge series with three sources reporting 2, 4 and 9, combined by `rule`. */
function gaugeOfThree(rule: LastValueRule) {
  const totals = new NameTotals('gauge', false, 0, 'gauge "load"');
  totals.lastValues = rule;
  const series = new ValueSeries(totals, 0, 0, valueColumns());
  const sources = [series.source(), series.source(), series.source()];
  sources.forEach((source, i) => source.set([2, 4, 9][i]!));
  return { series, sources };
}

describe('ValueSeries last-value rules', () => {
  it.each([
    ['sum', 15, 6],
    ['max', 9, 4],
    ['min', 2, 2],
    ['average', 5, 3],
  ] as const)(
    'should combine by %s, and leave a forgotten source out',
    (rule, all, withoutLast) => {
      const { series, sources } = gaugeOfThree(rule);
      expect(series.publish()).toBe(all);
      expect(sources[2]!.forget()).toBe(true);
      expect(series.publish()).toBe(withoutLast);
      // Forgotten twice: nothing changes.
      expect(sources[2]!.forget()).toBe(false);
    }
  );

  it('should count a source that has not reported yet only in the sum (as 0)', () => {
    const totals = new NameTotals('gauge', false, 0, 'gauge "load"');
    totals.lastValues = 'min';
    const series = new ValueSeries(totals, 0, 0, valueColumns());
    series.source().set(5);
    series.source();
    expect(series.publish()).toBe(5);
  });

  it('should give 0 when every source is forgotten', () => {
    const { series, sources } = gaugeOfThree('average');
    for (const source of sources) source.forget();
    expect(series.publish()).toBe(0);
  });

  it.each(['sum', 'max', 'min', 'average'] as const)(
    'should serve a lone source as reported by %s, 0 once forgotten, with the increases added',
    rule => {
      const totals = new NameTotals('gauge', false, 0, 'gauge "load"');
      totals.lastValues = rule;
      const series = new ValueSeries(totals, 0, 0, valueColumns());
      const source = series.source();
      expect(series.publish()).toBe(0);
      expect(source.set(7)).toBe(true);
      expect(source.set(7)).toBe(false);
      series.add(2);
      expect(series.publish()).toBe(9);
      expect(source.forget()).toBe(true);
      expect(source.forget()).toBe(false);
      expect(series.publish()).toBe(2);
    }
  );

  it("should keep a lone source's value and whether it reported when a second source joins", () => {
    const totals = new NameTotals('gauge', false, 0, 'gauge "load"');
    totals.lastValues = 'average';
    const series = new ValueSeries(totals, 0, 0, valueColumns());
    const first = series.source();
    first.set(6);
    const second = series.source();
    // The second has not reported: the average is of the first alone.
    expect(series.publish()).toBe(6);
    expect(first.set(6)).toBe(false);
    second.set(10);
    expect(series.publish()).toBe(8);
    first.forget();
    const third = series.source();
    third.set(4);
    expect(series.publish()).toBe(7);
  });
});
