/**
 * TOML text as values: the document parsed (a syntax error as a ConfigError with its line and
 * column), and a value as messages show it.
 */
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import type { TomlTable, TomlValue } from 'smol-toml' with {
  'resolution-mode': 'import',
};
import { ConfigError } from '../errors';
import { shorten } from '../optionValidation';

// smol-toml ships a CommonJS build (dist/index.cjs), but its types are declared for ESM
// only, so a static import does not type-check in this CommonJS package.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const { parse, TomlDate, TomlError } = require('smol-toml') as typeof SmolToml;

const ERROR_PREFIX = /^Invalid TOML document: /;

/** The document, with integers as bigints. */
export function parseToml(text: string, file: string): TomlTable {
  try {
    return parse(text, { integersAsBigInt: true });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split('\n', 1)[0]!.replace(ERROR_PREFIX, '');
    throw new ConfigError(
      file,
      `line ${error.line}, column ${error.column}`,
      `found invalid TOML (${reason}), expected valid TOML syntax`
    );
  }
}

/** Whether a TOML value is a table. */
export function isTable(value: TomlValue | undefined): value is TomlTable {
  return (
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof Date)
  );
}

/** A TOML value as JSON would show it (numbers in TOML spelling), or `nothing`. */
export function render(value: TomlValue | undefined): string {
  return value === undefined ? 'nothing' : shorten(renderValue(value));
}

function renderValue(value: TomlValue): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'number':
      if (Number.isNaN(value)) return 'nan';
      if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
      return Number.isInteger(value) && Math.abs(value) < 1e21
        ? value.toFixed(1)
        : String(value);
    default:
      if (value instanceof TomlDate) return value.toISOString();
      if (Array.isArray(value)) return `[${value.map(renderValue).join(',')}]`;
      if (isTable(value)) {
        return `{${Object.entries(value)
          .map(([key, item]) => `${JSON.stringify(key)}:${renderValue(item)}`)
          .join(',')}}`;
      }
      return String(value);
  }
}
