/**
 * The legacy API's base URL, named `--legacy` by every command; `--server`, its older name in
 * `migrate`, is kept as an alias by both.
 */
import type { ParsedCommandLine } from './parseCommandLine';
import { UsageError } from './UsageError';

/** The parseArgs options of the legacy API's base URL. */
export const LEGACY_URL_OPTIONS = {
  legacy: { type: 'string' },
  server: { type: 'string' },
} as const;

/** The help text's line for it. */
export const LEGACY_URL_HELP =
  "--legacy URL       the legacy API's base, e.g. http://127.0.0.1:8088/api (alias: --server)";

/** The value of `--legacy` (or its alias `--server`), or undefined when neither is given. */
export function legacyUrlOf(
  command: string,
  values: ParsedCommandLine['values']
): string | undefined {
  const { legacy, server } = values as { legacy?: string; server?: string };
  if (legacy !== undefined && server !== undefined && legacy !== server)
    throw new UsageError(
      `${command}: found --legacy ${JSON.stringify(legacy)} and --server ${JSON.stringify(server)}, expected one legacy API URL (--server is another name for --legacy)`
    );
  const value = legacy ?? server;
  if (value === '')
    throw new UsageError(
      `${command}: found an empty --legacy, expected the legacy API's base URL such as http://127.0.0.1:8088/api`
    );
  return value;
}
