import { NameTotals, type LastValueRule } from '../../src/reader/series';
import { ValueSeries } from '../../src/reader/ValueSeries';

/** A gauge series with three sources reporting 2, 4 and 9, combined by `rule`. */
function gaugeOfThree(rule: LastValueRule) {
  const totals = new NameTotals('gauge', false, 0, 'gauge "load"');
  totals.lastValues = rule;
  const series = new ValueSeries('gauge', totals, 0, 0, 0);
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
    const series = new ValueSeries('gauge', totals, 0, 0, 0);
    series.source().set(5);
    series.source();
    expect(series.publish()).toBe(5);
  });

  it('should give 0 when every source is forgotten', () => {
    const { series, sources } = gaugeOfThree('average');
    for (const source of sources) source.forget();
    expect(series.publish()).toBe(0);
  });
});
