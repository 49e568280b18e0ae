/**
 * `legacy-metrics-api compare --legacy URL --prometheus URL [--host-type NAME …] [--json]`: reads
 * the legacy API and the Prometheus exposition of one server together and says, key by key,
 * whether they give the same numbers.
 */
import { parseArgs } from 'node:util';
import {
  compareServers,
  comparisonText,
  SAMPLE_INTERVAL_MS,
} from '../migrate/compareServers';
import { UsageError } from './UsageError';

/** `compare --help`. */
export const COMPARE_USAGE = `Usage: legacy-metrics-api compare --legacy URL --prometheus URL [--host-type NAME …] [--json]

Reads the legacy metrics API and the Prometheus exposition of the same server together (the
exposition every ${SAMPLE_INTERVAL_MS} ms for a little over one slot, so that a gauge's moves are
seen) and prints, per host type and metric, the legacy value, the Prometheus value and whether
they agree (the tolerance of each kind of key is stated in the output). Exits 0 when every key agrees, 1 on any
disagreement, 2 on a usage or connection error.

Options:
  --legacy URL       the legacy API's base, e.g. http://127.0.0.1:8088/api
  --prometheus URL   the server's Prometheus endpoint, e.g. http://127.0.0.1:9464/metrics
  --host-type NAME   compare this host type only (repeatable; default: every host type and the
                     global metrics)
  --json             print the comparison as JSON
  -h, --help         Show this help`;

/** Exit status when a key disagrees. */
export const EXIT_DISAGREE = 1;

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: false,
      strict: true,
      options: {
        legacy: { type: 'string' },
        prometheus: { type: 'string' },
        'host-type': { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(
      `compare: ${(error as Error).message.split('\n')[0]}; see 'legacy-metrics-api compare --help'`
    );
  }
}

function url(
  option: string,
  value: string | undefined,
  example: string
): string {
  if (value === undefined)
    throw new UsageError(
      `compare: found no --${option}, expected --${option} URL (e.g. ${example})`
    );
  try {
    new URL(value);
  } catch {
    throw new UsageError(
      `compare: --${option}: found ${JSON.stringify(value)}, expected a URL such as ${example}`
    );
  }
  return value;
}

/** Runs `compare`; resolves to the exit status. */
export async function compareCommand(
  args: string[],
  out: (line: string) => void
): Promise<number> {
  const { values } = parse(args);
  if (values.help === true) {
    out(COMPARE_USAGE);
    return 0;
  }
  const comparison = await compareServers({
    legacy: url('legacy', values.legacy, 'http://127.0.0.1:8088/api'),
    prometheus: url(
      'prometheus',
      values.prometheus,
      'http://127.0.0.1:9464/metrics'
    ),
    hostTypes: values['host-type'],
  });
  if (values.json === true) out(JSON.stringify(comparison, null, 2));
  else for (const line of comparisonText(comparison)) out(line);
  return comparison.disagreements === 0 ? 0 : EXIT_DISAGREE;
}
