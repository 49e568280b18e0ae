import { InvalidOptionError } from '../../src';
import {
  formatInstant,
  isRepresentableInstant,
  MAX_INSTANT_MS,
  parseInstant,
} from '../../src/config/instants';
import { deprecationOption } from '../../src/http/deprecation';

const YEAR_0 = -62167219200000;

describe('parseInstant', () => {
  it.each<[string, number | undefined]>([
    ['0000-01-01', YEAR_0],
    ['0000-02-29', YEAR_0 + 59 * 86_400_000],
    ['0050-01-01', Date.parse('0050-01-01T00:00:00Z')],
    ['0099-12-31', Date.parse('0099-12-31T00:00:00Z')],
    ['0100-02-29', undefined],
    ['1900-02-29', undefined],
    ['0001-02-29', undefined],
    ['0050-06-30T12:00:00+02:00', Date.parse('0050-06-30T10:00:00Z')],
    ['9999-12-31T23:59:59Z', Date.parse('9999-12-31T23:59:59Z')],
  ])('should take the four digits of the year in %j literally', (text, ms) => {
    expect(parseInstant(text)).toBe(ms);
    if (ms !== undefined)
      expect(formatInstant(ms)).toBe(
        text.length === 10 ? `${text}T00:00:00Z` : formatInstant(ms)
      );
  });

  it('should read the year 50 as 50, not 1950 as Date.UTC does', () => {
    expect(new Date(parseInstant('0050-01-01')!).getUTCFullYear()).toBe(50);
  });
});

describe('isRepresentableInstant', () => {
  it.each<[number, boolean]>([
    [0, true],
    [MAX_INSTANT_MS, true],
    [-MAX_INSTANT_MS, true],
    [MAX_INSTANT_MS + 1, false],
    [-MAX_INSTANT_MS - 1, false],
    [NaN, false],
    [Infinity, false],
  ])('should say %d is representable: %s', (ms, representable) => {
    expect(isRepresentableInstant(ms)).toBe(representable);
    if (representable) expect(() => formatInstant(ms)).not.toThrow();
  });
});

describe('deprecation code options', () => {
  const fromOptions = (deprecation: unknown): unknown => {
    try {
      deprecationOption('legacyMetricsApi.deprecation', deprecation);
    } catch (error) {
      return error;
    }
    throw new Error('expected an InvalidOptionError');
  };
  const END =
    'expected a duration that ends the window by +275760-09-13T00:00:00Z, the latest instant a date can hold';

  it.each<[string, unknown, string]>([
    [
      'a brownout ending after the year 275760',
      {
        since: '2026-01-01',
        brownouts: [{ start: '9999-12-31', duration: 'P100000000D' }],
      },
      `legacyMetricsApi.deprecation.brownouts[0].duration: found "P100000000D", ${END}`,
    ],
    [
      'a brownout starting at the last Date and lasting an hour',
      {
        since: '2026-01-01',
        brownouts: [{ start: new Date(MAX_INSTANT_MS), duration: 'PT1H' }],
      },
      `legacyMetricsApi.deprecation.brownouts[0].duration: found "PT1H", ${END}`,
    ],
    [
      'an own __proto__ key (as JSON.parse gives)',
      JSON.parse(
        '{"since": "2026-01-01", "__proto__": {"sunset": "2020-01-01"}}'
      ),
      'legacyMetricsApi.deprecation.__proto__: found an unknown option, expected one of since, sunset, successor, documentation, inBand, enforceSunset, brownouts',
    ],
  ])('should refuse %s with its path', (_name, deprecation, message) => {
    const error = fromOptions(deprecation);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toBe(message);
  });
});
