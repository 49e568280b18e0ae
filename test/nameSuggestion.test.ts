import { InvalidOptionError } from '../src';
import {
  closestName,
  expectedOneOf,
  MAX_COMPARED_LENGTH,
} from '../src/nameSuggestion';
import { checkOptionObject } from '../src/optionValidation';
import { fastestMs } from './support/timing';

describe('closestName', () => {
  it.each<[string, string[], string | undefined]>([
    ['hots', ['address', 'host', 'hostname', 'port'], 'host'],
    ['maxClient', ['maxClients'], 'maxClients'],
    [
      'all_metrics_are_global',
      ['allMetricsAreGlobal', 'variant'],
      'allMetricsAreGlobal',
    ],
    ['enforce_sunet', ['since', 'sunset', 'enforce_sunset'], 'enforce_sunset'],
    ['hsot_type', ['"host_type"', '"host"'], '"host_type"'],
    ['x', ['a', 'b', 'c'], undefined],
    ['end', ['start', 'duration'], undefined],
    ['sinceeee', ['since'], undefined],
  ])('should find for %j among %j: %j', (found, allowed, closest) => {
    expect(closestName(found, allowed)).toBe(closest);
  });

  it(`should still compare names of up to ${MAX_COMPARED_LENGTH} characters`, () => {
    const long = 'a'.repeat(MAX_COMPARED_LENGTH - 1);
    expect(closestName(`${long}b`, [`${long}`, 'b'])).toBe(long);
  });

  it(`should not compare a name longer than ${MAX_COMPARED_LENGTH} characters`, () => {
    const long = 'a'.repeat(MAX_COMPARED_LENGTH);
    expect(closestName(`${long}b`, [long])).toBeUndefined();
  });
});

describe('expectedOneOf', () => {
  it('should answer a 1 MB name at once and without a matrix of its length', () => {
    const name = 'k'.repeat(1 << 20);
    const heapBefore = process.memoryUsage().heapUsed;
    // An edit distance of its length to each name, even in three rows, takes 0.15 s.
    const ms = fastestMs(50, () =>
      expect(expectedOneOf(name, ['host', 'path', 'handlers'])).toBe(
        'one of host, path, handlers'
      )
    );
    expect(ms).toBeLessThan(50);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(
      20 * 1024 * 1024
    );
  });

  it('should compare a name only with allowed names of a similar length, and still find a typo among them', () => {
    // 251 characters against 250: within two edits and a third of its length.
    const allowed = ['x'.repeat(250), 'y'.repeat(40), 'x'.repeat(10)];
    const show = (name: string): string => `${name[0]}×${name.length}`;
    expect(expectedOneOf(`${'x'.repeat(250)}z`, allowed, show)).toBe(
      'one of x×250, y×40, x×10 (did you mean x×250?)'
    );
  });
});

describe('checkOptionObject with a 1 MB unknown key', () => {
  it('should name the key cut short and suggest nothing', () => {
    const key = 'k'.repeat(1 << 20);
    const ms = fastestMs(100, () =>
      expect(() =>
        checkOptionObject('prometheus', { [key]: 1 }, [
          'address',
          'host',
          'port',
        ])
      ).toThrow(
        new InvalidOptionError(
          `prometheus.${'k'.repeat(59)}…: found an unknown option, expected one of address, host, port`
        )
      )
    );
    expect(ms).toBeLessThan(100);
  });
});
