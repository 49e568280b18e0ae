import {
  DEFAULT_READER_OPTIONS,
  InvalidOptionError,
  LegacyMetricsReader,
} from '../../src';
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
    [{ windowMs: -5 }, 'windowMs must be a positive integer (got -5)'],
    [{ windowMs: 1.5 }, 'windowMs must be a positive integer (got 1.5)'],
    [{ slotMs: 0 }, 'slotMs must be a positive integer (got 0)'],
    [{ slotMs: '1000' }, 'slotMs must be a positive integer (got "1000")'],
    [
      { windowMs: 1500, slotMs: 1000 },
      'windowMs must be a multiple of slotMs (got windowMs 1500, slotMs 1000)',
    ],
    [
      { hostTypes: 'localhost' },
      'hostTypes must be an array of strings (got "localhost")',
    ],
    [
      { hostTypes: ['a', ''] },
      'hostTypes[1] must be a non-empty string (got "")',
    ],
    [{ hostTypes: ['a', 'a'] }, 'hostTypes[1] repeats "a"'],
    [{ hosts: [1] }, 'hosts[0] must be a non-empty string (got 1)'],
    [
      { allMetricsAreGlobal: 'yes' },
      'allMetricsAreGlobal must be a boolean (got "yes")',
    ],
    [{ legacyName: 'x' }, 'legacyName must be a function (got "x")'],
    [
      { cardinalityLimit: 0 },
      'cardinalityLimit must be a positive integer (got 0)',
    ],
    [
      { histogramMaxBuckets: 1 },
      'histogramMaxBuckets must be at least 2 (got 1)',
    ],
    [
      { host_types: ['a'] },
      'unknown option host_types; did you mean hostTypes?',
    ],
    [{ colour: 'blue' }, 'unknown option colour'],
  ])('should reject %j', (options, message) => {
    expect(() => resolveReaderOptions(options as never)).toThrow(
      new InvalidOptionError(message)
    );
    expect(() => new LegacyMetricsReader(options as never)).toThrow(message);
  });
});
