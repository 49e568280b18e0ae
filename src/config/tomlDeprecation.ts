/** The TOML adapter of the deprecation settings: a handler group's `deprecation` table. */
import type { TomlTable, TomlValue } from 'smol-toml' with {
  'resolution-mode': 'import',
};
import { ConfigError } from '../errors';
import type { DeprecationOptions } from './deprecationOptions';
import { deprecationFromFile, renderFound } from './resolveDeprecation';

/**
 * Reads the `deprecation` table of a TOML handler group (`[[…service_api]]` with a
 * `deprecation` table and `[[…deprecation.brownouts]]` windows).
 * @param place the table's key path, e.g. `listen.http[0].handlers.service_api[0].deprecation`
 * @throws ConfigError naming the key path of the first invalid setting
 */
export function readTomlDeprecation(
  value: TomlValue,
  place: string,
  file: string
): DeprecationOptions {
  const plain = tomlToPlain(value);
  return deprecationFromFile(plain, problem => {
    const where = problem.path === '' ? place : `${place}.${problem.path}`;
    throw new ConfigError(
      file,
      where,
      problem.unknownKey === true
        ? `found an unknown key, expected ${problem.expected}`
        : `found ${renderFound(problem.found)}, expected ${problem.expected}`
    );
  });
}

/** TOML dates as their ISO text (a local date-time, with no offset, is then refused); integers as numbers. */
function tomlToPlain(value: TomlValue): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(tomlToPlain);
  if (typeof value === 'object') {
    // Object.fromEntries defines keys, so `__proto__` stays a key and is refused as unknown.
    return Object.fromEntries(
      Object.entries(value as TomlTable).map(([key, item]) => [
        key,
        tomlToPlain(item),
      ])
    );
  }
  return value;
}
