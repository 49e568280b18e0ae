import { InvalidOptionError } from '../src';
import {
  checkOptionObject,
  describeValue,
  normalizePrefix,
  portOption,
  positiveIntegerOption,
  prefixOption,
} from '../src/optionValidation';
import { expectedOneOf } from '../src/nameSuggestion';

describe('checkOptionObject', () => {
  it('should reject an unknown key with the nearest known name and the full path', () => {
    expect(() =>
      checkOptionObject('prometheus', { hots: 'x' }, [
        'address',
        'host',
        'port',
      ])
    ).toThrow(
      new InvalidOptionError(
        'prometheus.hots: found an unknown option, expected one of address, host, port (did you mean host?)'
      )
    );
  });

  it('should answer host with the option that takes each of its meanings', () => {
    expect(() =>
      checkOptionObject('prometheus', { host: 'x' }, [
        'address',
        'port',
        'allowedHost',
      ])
    ).toThrow(
      new InvalidOptionError(
        'prometheus.host: found an unknown option, expected one of address, port, allowedHost (did you mean allowedHost for the Host header to answer or address for the address to bind?)'
      )
    );
    expect(() =>
      checkOptionObject('legacyMetricsApi', { host: 'x' }, [
        'reader',
        'allowedHost',
      ])
    ).toThrow(
      new InvalidOptionError(
        'legacyMetricsApi.host: found an unknown option, expected reader or allowedHost (did you mean allowedHost for the Host header to answer?)'
      )
    );
  });

  it('should reject what is not an object', () => {
    expect(() => checkOptionObject('', null, [])).toThrow(
      new InvalidOptionError('options: found null, expected an object')
    );
  });
});

describe('expectedOneOf', () => {
  it('should name a single allowed name alone, two with "or", more as a list', () => {
    expect(expectedOneOf('maxClient', ['maxClients'])).toBe(
      'maxClients (did you mean maxClients?)'
    );
    expect(expectedOneOf('end', ['start', 'duration'])).toBe(
      'start or duration'
    );
    expect(expectedOneOf('x', ['a', 'b', 'c'])).toBe('one of a, b, c');
  });
});

describe('describeValue', () => {
  it('should show a Date by its instant, and say when it is invalid', () => {
    expect(describeValue(new Date('2026-01-01T00:00:00Z'))).toBe(
      'Date 2026-01-01T00:00:00.000Z'
    );
    expect(describeValue(new Date('nope'))).toBe('an invalid Date');
  });
});

describe('portOption', () => {
  it.each([[-1], [65536], [1.5], ['80'], [null]])('should reject %p', value => {
    expect(() => portOption('listeners[1].port', value)).toThrow(
      new InvalidOptionError(
        `listeners[1].port: found ${typeof value === 'string' ? '"80"' : String(value)}, expected an integer from 0 to 65535`
      )
    );
  });

  it('should keep 0 and apply the fallback only when left out', () => {
    expect(portOption('port', 0, 9464)).toBe(0);
    expect(portOption('port', undefined, 9464)).toBe(9464);
  });
});

describe('positiveIntegerOption', () => {
  it('should name the option, the value found and what was expected', () => {
    expect(() => positiveIntegerOption('windowMs', -5)).toThrow(
      new InvalidOptionError('windowMs: found -5, expected a positive integer')
    );
  });
});

describe('prefixOption', () => {
  it('should normalise the trailing slash once for every caller', () => {
    expect(prefixOption('path', '/api/')).toBe('/api');
    expect(prefixOption('path', '/')).toBe('/');
    expect(prefixOption('path', undefined, '/api')).toBe('/api');
    expect(normalizePrefix('/a/b/')).toBe('/a/b');
    expect(() =>
      prefixOption('listeners[1].handlerGroups[0].path', 'api')
    ).toThrow(
      new InvalidOptionError(
        'listeners[1].handlerGroups[0].path: found "api", expected a string starting with "/"'
      )
    );
  });
});
