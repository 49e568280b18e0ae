import {
  checkUniqueAddresses,
  checkUniqueGroups,
  isPort,
  isPositiveCount,
} from '../../src/config/listenerRules';
import { expectedOneOf } from '../../src/nameSuggestion';
import { MAX_RENDERED_LENGTH, shorten } from '../../src/optionValidation';
import type { ListenerConfig } from '../../src/config/types';
import { expectConfigError } from './expectConfigError';

function listener(
  place: string,
  port: number,
  ipAddress?: string
): ListenerConfig {
  return {
    port,
    ipAddress,
    ipVersion: 4,
    numAcceptors: 100,
    maxConnections: 1024,
    handlerGroups: [],
    place,
  };
}

describe('isPort', () => {
  it.each([
    [0n, true],
    [65535n, true],
    [-1n, false],
    [65536n, false],
  ])('should judge %s', (value, valid) => {
    expect(isPort(value)).toBe(valid);
  });
});

describe('isPositiveCount', () => {
  it.each([
    [1n, true],
    [BigInt(Number.MAX_SAFE_INTEGER), true],
    [0n, false],
    [-3n, false],
    [BigInt(Number.MAX_SAFE_INTEGER) + 1n, false],
  ])('should judge %s', (value, valid) => {
    expect(isPositiveCount(value)).toBe(valid);
  });
});

describe('expectedOneOf', () => {
  it('should join two names with "or" and more with commas', () => {
    expect(expectedOneOf('x', ['a', 'b'])).toBe('a or b');
    expect(expectedOneOf('x', ['a', 'b', 'c'])).toBe('one of a, b, c');
  });

  it('should suggest the closest name within two edits, ignoring case', () => {
    expect(expectedOneOf('Por', ['port', 'path'])).toBe(
      'port or path (did you mean port?)'
    );
    expect(
      expectedOneOf('handler', ['handlers', 'variant'], n => `"${n}"`)
    ).toBe('"handlers" or "variant" (did you mean "handlers"?)');
    expect(expectedOneOf('backlog', ['num_acceptors', 'max_connections'])).toBe(
      'num_acceptors or max_connections'
    );
  });
});

describe('shorten', () => {
  it(`should keep up to ${MAX_RENDERED_LENGTH} characters and cut longer text with an ellipsis`, () => {
    expect(shorten('x'.repeat(MAX_RENDERED_LENGTH))).toBe(
      'x'.repeat(MAX_RENDERED_LENGTH)
    );
    expect(shorten('x'.repeat(MAX_RENDERED_LENGTH + 1))).toBe(
      `${'x'.repeat(MAX_RENDERED_LENGTH - 1)}…`
    );
  });
});

describe('checkUniqueGroups', () => {
  it('should tell host and path apart exactly', () => {
    const groups = [
      {
        host: '_',
        path: '/api',
        variant: 'host_type' as const,
        handlers: [],
        place: 'g0',
      },
      {
        host: '_',
        path: '/api/',
        variant: 'host_type' as const,
        handlers: [],
        place: 'g1',
      },
      {
        host: 'Localhost',
        path: '/api',
        variant: 'host_type' as const,
        handlers: [],
        place: 'g2',
      },
    ];
    expect(() =>
      checkUniqueGroups({ ...listener('l0', 1), handlerGroups: groups }, 'f')
    ).not.toThrow();
    expectConfigError(
      () =>
        checkUniqueGroups(
          {
            ...listener('l0', 1),
            handlerGroups: [...groups, { ...groups[1]!, place: 'g3' }],
          },
          'f'
        ),
      'f: g3: found host "_" and path "/api/" a second time, expected each host and path once per listener (first at g1)'
    );
  });
});

describe('checkUniqueAddresses', () => {
  it('should allow port 0 many times and one port on different addresses', () => {
    expect(() =>
      checkUniqueAddresses(
        [
          listener('a', 0),
          listener('b', 0),
          listener('c', 80),
          listener('d', 80, '127.0.0.1'),
          listener('e', 80, '::1'),
        ],
        'f'
      )
    ).not.toThrow();
  });

  it('should reject the same port on the same address', () => {
    expectConfigError(
      () =>
        checkUniqueAddresses(
          [
            listener('a', 80, '::1'),
            listener('b', 81),
            listener('c', 80, '::1'),
          ],
          'f'
        ),
      'f: c: found port 80 on ::1 a second time, expected each address and port once (first at a)'
    );
  });
});
