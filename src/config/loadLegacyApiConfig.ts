/**
 * Loads the legacy metrics API listeners from the messaging server's configuration
 * file, in the TOML form or the older Erlang-term form.
 */
import { extname } from 'node:path';
import { ConfigError } from '../errors';
import { readConfigFile } from './readConfigText';
import { readTermListeners } from './termListeners';
import { readTomlListeners } from './tomlListeners';
import type { LegacyApiConfig } from './types';

const TOML_EXTENSIONS: readonly string[] = ['.toml'];
const TERM_EXTENSIONS: readonly string[] = ['.cfg', '.config', '.erl', '.term'];
/**
 * How a term file begins: `{`, or a `%` comment (which TOML does not allow), after
 * blank space.
 */
const TERM_START = /^\uFEFF?[ \t\r\n\f\v]*[{%]/;
/** How a JSON document may begin; such a file is only JSON if it also parses as JSON. */
const JSON_START = /^\uFEFF?\s*[{[]/;

/**
 * Reads and validates a configuration file.
 *
 * The form follows the extension (`.toml`; `.cfg`, `.config`, `.erl`, `.term`), otherwise
 * the content: a file whose first significant character is `{` or a `%` comment is read
 * as terms, anything else as TOML.
 * @param path the file; errors name it as given
 * @returns our listeners; `listeners: []` when the file has none
 * @throws ConfigError when the file cannot be read, is larger than MAX_CONFIG_BYTES
 *   (4 MiB), is JSON, or a setting is invalid
 */
export async function loadLegacyApiConfig(
  path: string
): Promise<LegacyApiConfig> {
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      path,
      '',
      `found an unreadable file (${describeReadError(error)}), expected a readable configuration file`
    );
  }
  return parseLegacyApiConfig(text, path);
}

/**
 * Validates configuration text, as {@link loadLegacyApiConfig} does after reading it.
 * @param text the file's content
 * @param file the file's name: for error messages and, without `format`, for its extension
 * @param format the form to read; detected from `file` and `text` when left out
 * @throws ConfigError when a setting is invalid
 */
export function parseLegacyApiConfig(
  text: string,
  file: string,
  format?: 'toml' | 'term'
): LegacyApiConfig {
  if (format === undefined && isJson(text, file)) {
    // A term file starts with `{` too, but never parses as JSON (its terms end with `.`).
    throw new ConfigError(
      file,
      '',
      'found JSON, expected the TOML or Erlang-term form of the configuration (JSON is not a supported form)'
    );
  }
  const chosen = format ?? detectFormat(text, file);
  const listeners =
    chosen === 'toml'
      ? readTomlListeners(text, file)
      : readTermListeners(text, file);
  return { file, format: chosen, listeners };
}

function detectFormat(text: string, file: string): 'toml' | 'term' {
  const extension = extname(file).toLowerCase();
  if (TOML_EXTENSIONS.includes(extension)) return 'toml';
  if (TERM_EXTENSIONS.includes(extension)) return 'term';
  return TERM_START.test(text) ? 'term' : 'toml';
}

function isJson(text: string, file: string): boolean {
  if (extname(file).toLowerCase() === '.json') return true;
  if (!JSON_START.test(text)) return false;
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
    return true;
  } catch {
    return false;
  }
}

/** `ENOENT: no such file or directory`, without the path Node appends. */
function describeReadError(error: unknown): string {
  // Not `instanceof Error`: errors from node:fs may come from another realm (jest).
  const { code, message } = (error ?? {}) as Partial<NodeJS.ErrnoException>;
  if (typeof message !== 'string') return String(error);
  const reason = message.replace(/, \w+(?: '.*')?$/, '');
  return typeof code === 'string' && !reason.startsWith(code)
    ? `${code}: ${reason}`
    : reason;
}
