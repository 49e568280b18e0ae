import { InvalidOptionError, LegacyMetricsReader } from '../../src';
import { DEFAULT_READER_OPTIONS } from '../../src/reader/options';
import { resolveReaderOptions } from '../../src/reader/options';

describe('resolveReaderOptions', () => {
  it('should apply the documented defaults', () => {
    const resolved = resolveReaderOptions();
    expect(resolved).toMatchObject({
      hostTypes: [],
      hosts: undefined,
      allMetricsAreGlobal: false,
      windowMs: 60_000,
      slotMs: 1_000,
      cardinalityLimit: 100_000,
      histogramMaxBuckets: 160,
    });
    expect(resolved.windowMs).toBe(DEFAULT_READER_OPTIONS.windowMs);
    expect(resolved.now).toBe(Date.now);
  });

  it('should drive the window with a monotonic clock, or with the test clock when only `now` is given', () => {
    const steady = resolveReaderOptions().monotonicNow;
    expect(steady).not.toBe(Date.now);
    expect(Math.abs(steady() - Date.now())).toBeLessThan(60_000);
    const now = (): number => 5;
    expect(resolveReaderOptions({ now }).monotonicNow).toBe(now);
    const monotonicNow = (): number => 7;
    expect(resolveReaderOptions({ now, monotonicNow }).monotonicNow).toBe(
      monotonicNow
    );
  });

  it('should keep 0-like values given on purpose rather than default them', () => {
    expect(
      resolveReaderOptions({ allMetricsAreGlobal: false, hostTypes: [] })
        .allMetricsAreGlobal
    ).toBe(false);
  });

  it('should never write into the caller options', () => {
    const options = Object.freeze({
      hostTypes: Object.freeze(['a']),
      windowMs: 2000,
      slotMs: 500,
    });
    const resolved = resolveReaderOptions(options);
    expect(resolved.hostTypes).toEqual(['a']);
    expect(resolved.hostTypes).not.toBe(options.hostTypes);
  });

  it.each([
    [{ windowMs: -5 }, 'windowMs: found -5, expected a positive integer'],
    [{ windowMs: 1.5 }, 'windowMs: found 1.5, expected a positive integer'],
    [{ slotMs: 0 }, 'slotMs: found 0, expected a positive integer'],
    [{ slotMs: '1000' }, 'slotMs: found "1000", expected a positive integer'],
    [
      { windowMs: 1500, slotMs: 1000 },
      'windowMs: found 1500, expected a multiple of slotMs (1000)',
    ],
    [
      { hostTypes: 'localhost' },
      'hostTypes: found "localhost", expected an array of non-empty strings',
    ],
    [
      { hostTypes: ['a', ''] },
      'hostTypes[1]: found "", expected a non-empty string',
    ],
    [
      { hostTypes: ['a', 'a'] },
      'hostTypes[1]: found "a", expected each name once',
    ],
    [{ hosts: [1] }, 'hosts[0]: found 1, expected a non-empty string'],
    [
      { allMetricsAreGlobal: 'yes' },
      'allMetricsAreGlobal: found "yes", expected a boolean',
    ],
    [{ legacyName: 'x' }, 'legacyName: found "x", expected a function'],
    [{ monotonicNow: 1 }, 'monotonicNow: found 1, expected a function'],
    [
      { cardinalityLimit: 0 },
      'cardinalityLimit: found 0, expected a positive integer',
    ],
    [
      { histogramMaxBuckets: 1 },
      'histogramMaxBuckets: found 1, expected at least 2',
    ],
    [
      { host_types: ['a'] },
      'host_types: found an unknown option, expected one of hostTypes, hosts, allMetricsAreGlobal, windowMs, slotMs, legacyName, meters, cardinalityLimit, histogramMaxBuckets, now, monotonicNow, cluster, sliceMs, slicePoints (did you mean hostTypes?)',
    ],
    [
      { colour: 'blue' },
      'colour: found an unknown option, expected one of hostTypes, hosts, allMetricsAreGlobal, windowMs, slotMs, legacyName, meters, cardinalityLimit, histogramMaxBuckets, now, monotonicNow, cluster, sliceMs, slicePoints',
    ],
  ])('should reject %j', (options, message) => {
    expect(() => resolveReaderOptions(options as never)).toThrow(
      new InvalidOptionError(message)
    );
    expect(() => new LegacyMetricsReader(options as never)).toThrow(message);
  });
});
