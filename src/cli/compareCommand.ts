/**
 * `legacy-metrics-api compare --legacy URL --prometheus URL [--host-type NAME …] [--json]
 * [--quiet]`: reads the legacy API and the Prometheus exposition of one server together and says,
 * key by key, whether they give the same numbers.
 */
import type { CompareProgress } from '../migrate/compareServers';
import { SAMPLE_INTERVAL_MS } from '../migrate/compareTolerances';
import { type CliCommand, printUsage } from './cliCommand';
import { compareInWorker, runComparison } from './compareRun';
import {
  LEGACY_URL_HELP,
  LEGACY_URL_OPTIONS,
  legacyUrlOf,
} from './legacyUrlOption';
import { parseCommandLine } from './parseCommandLine';
import { ProgressLine } from './progressLine';
import { UsageError } from './UsageError';

/** `compare --help`. */
export const COMPARE_USAGE = `Usage: legacy-metrics-api compare --legacy URL --prometheus URL [--host-type NAME …] [--json] [--quiet]

Reads the legacy metrics API and the Prometheus exposition of the same server together (the
exposition every ${SAMPLE_INTERVAL_MS} ms, or back to back when it is large, from before the legacy
snapshot's slot until after each legacy map was read, so that a gauge's moves are seen) and
prints, per host type and metric, the legacy value, the Prometheus value and whether they agree
(the tolerance of each kind of key is stated in the output; a row that does not simply agree says
why). Exits 0 when every key agrees, 1 on any disagreement, 2 on a usage or connection error.

Options:
  ${LEGACY_URL_HELP}
  --prometheus URL   the server's Prometheus endpoint, e.g. http://127.0.0.1:9464/metrics
  --host-type NAME   compare this host type only (repeatable; default: every host type and the
                     global metrics)
  --json             print the comparison as JSON
  --quiet            no progress line on stderr (shown on a terminal after two seconds)
  -h, --help         Show this help`;

function url(
  option: string,
  value: string | undefined,
  example: string
): string {
  if (value === undefined)
    throw new UsageError(
      `compare: found no --${option}, expected --${option} URL (e.g. ${example})`
    );
  if (!URL.canParse(value))
    throw new UsageError(
      `compare: --${option}: found ${JSON.stringify(value)}, expected a URL such as ${example}`
    );
  return value;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Where the comparison runs: the built command runs it in a worker thread with a capped young
 * generation (its peak memory), its TypeScript source (as under ts-jest, where no built worker
 * script exists) in this thread.
 */
const runInWorker = __filename.endsWith('.js');

/** Runs `compare`; resolves to the exit status. */
export const compareCommand: CliCommand = async (args, { out }) => {
  const { values } = parseCommandLine('compare', args, {
    options: {
      ...LEGACY_URL_OPTIONS,
      prometheus: { type: 'string' },
      'host-type': { type: 'string', multiple: true },
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
    },
    parseArgsMessages: true,
  });
  if (values.help === true) return printUsage(out, COMPARE_USAGE);
  const legacy = url(
    'legacy',
    legacyUrlOf('compare', values),
    'http://127.0.0.1:8088/api'
  );
  const prometheus = url(
    'prometheus',
    values.prometheus as string | undefined,
    'http://127.0.0.1:9464/metrics'
  );
  const progress = new ProgressLine(process.stderr, values.quiet === true);
  const onProgress = (p: CompareProgress): void =>
    progress.update(
      () =>
        `compare: ${p.round > 1 ? `round ${p.round} (measuring disagreements again), ` : ''}${count(p.reads)} exposition reads, ${count(p.groupsDone)}/${count(p.groups)} maps read, ${count(p.keys)} keys compared`
    );
  const request = {
    legacy,
    prometheus,
    hostTypes: values['host-type'] as string[] | undefined,
    json: values.json === true,
  };
  // The progress line ends before the first line of output, as in-process.
  let outputStarted = false;
  const print = (line: string): void => {
    if (!outputStarted) progress.done();
    outputStarted = true;
    out(line);
  };
  try {
    return await (runInWorker ? compareInWorker : runComparison)(
      request,
      print,
      onProgress
    );
  } finally {
    progress.done();
  }
};
