import { diag, DiagLogLevel } from '@opentelemetry/api';
import { constants } from 'node:os';
import {
  loadLegacyApiConfig,
  parseLegacyApiConfig,
} from '../config/loadLegacyApiConfig';
import { readConfigStream } from '../config/readConfigText';
import { LegacyApiError } from '../errors';
import { DEFAULT_METER_PROVIDER_OPTIONS } from '../provider/createMeterProviderWithLegacyApi';
import { describeConfig, requireLegacyApiListener } from './checkConfigCommand';
import { compareCommand } from './compareCommand';
import {
  DEFAULT_DEMO_OPTIONS,
  defaultDemoConfigPath,
  startDemo,
  type DemoOptions,
} from './demoCommand';
import { packageVersion } from '../packageInfo';
import { migrateCommand } from './migrateCommand';
import { parseCommandLine } from './parseCommandLine';
import { UsageError } from './UsageError';

/** Where a command reads and writes. */
export interface CliIo {
  /** Prints one line of output. */
  out(line: string): void;
  /** Prints one line of diagnostics. */
  err(line: string): void;
  /** All of standard input, for `check-config -`, up to MAX_CONFIG_BYTES (4 MiB). */
  readStdin(): Promise<string>;
}

/** A command: its arguments (after the command's name) in, its exit status out. */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

/** The name `check-config -` gives standard input in its messages. */
export const STDIN_NAME = '<stdin>';

const PROMETHEUS_DEFAULTS = DEFAULT_METER_PROVIDER_OPTIONS.prometheus;

const USAGE = `Usage: legacy-metrics-api <command> [options]

Commands:
  demo [--config FILE]  Run a simulated messaging server with the legacy metrics API and Prometheus
  check-config FILE     Validate a configuration file and print its legacy metrics API listeners
  migrate COLLECTD_CONF
                        Turn a collectd curl_json poller into prometheus.yml, recording rules and a report
  compare --legacy URL --prometheus URL
                        Check that the legacy API and the Prometheus exposition give the same numbers

Options:
  --version      Print the package's version
  -h, --help     Show this help

Run 'legacy-metrics-api <command> --help' for a command's options.`;

const DEMO_USAGE = `Usage: legacy-metrics-api demo [--config FILE] [--prometheus-port PORT]
       [--prometheus-host ADDRESS | --no-prometheus] [--workers N]

Runs a simulated messaging server for two host types. It serves the legacy metrics API on the
listeners of the messaging server configuration FILE and Prometheus on
http://${PROMETHEUS_DEFAULTS.address}:${PROMETHEUS_DEFAULTS.port}${PROMETHEUS_DEFAULTS.endpoint} until interrupted. On SIGINT (Ctrl-C) or SIGTERM it
stops accepting, lets requests in flight finish (at most ${DEFAULT_DEMO_OPTIONS.graceMs / 1000} s), flushes and exits 0;
a second signal exits at once.

Options:
  --config FILE             TOML or Erlang-term configuration file (default: ${DEFAULT_DEMO_OPTIONS.config}
                            in this package, which serves http://127.0.0.1:8088/api/metrics)
  --prometheus-port PORT    The Prometheus exporter's port; 0 picks a free one (default:
                            OTEL_EXPORTER_PROMETHEUS_PORT, else ${PROMETHEUS_DEFAULTS.port})
  --prometheus-host ADDRESS The address it binds (default: OTEL_EXPORTER_PROMETHEUS_HOST,
                            else ${PROMETHEUS_DEFAULTS.address})
  --no-prometheus           No Prometheus exporter
  --workers N               Run as a node:cluster server of N workers: the primary serves the
                            whole server's legacy API and Prometheus (default: 1, one process)
  -h, --help                Show this help`;

const CHECK_CONFIG_USAGE = `Usage: legacy-metrics-api check-config FILE

Validates the legacy metrics API listeners of a messaging server configuration FILE (TOML or
the older Erlang-term form, at most 4 MiB; - reads standard input) and prints each listener
with the settings in effect. Exits 0 when the file is valid and a listener serves the legacy metrics API, 2 with
a one-line message naming the place at fault when it is not.

Options:
  -h, --help     Show this help`;

/** Exit status of a usage or configuration error, as the original server's startup checks used. */
export const EXIT_USAGE = 2;

const PORT = /^\d{1,5}$/;

/**
 * Watches SIGINT and SIGTERM: `first` resolves with the first one; from then on a second one
 * exits at once, with the status a shell gives a process killed by it (128 + its number).
 * `release` restores the default handling.
 */
function watchSignals(): { first: Promise<void>; release(): void } {
  const now = (signal: NodeJS.Signals): never =>
    process.exit(128 + constants.signals[signal]);
  let onFirst: () => void = () => undefined;
  const first = new Promise<void>(resolve => (onFirst = resolve));
  let seen = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (seen) now(signal);
    seen = true;
    onFirst();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    first,
    release: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/** The demo's Prometheus endpoint from its options: only what was given, so the setup's defaults and environment apply. */
function prometheusOption(
  values: Readonly<Record<string, string | boolean | undefined>>
): DemoOptions['prometheus'] {
  const port = values['prometheus-port'] as string | undefined;
  const host = values['prometheus-host'] as string | undefined;
  if (values['no-prometheus'] === true) {
    if (port !== undefined || host !== undefined)
      throw new UsageError(
        `demo: found --no-prometheus with --prometheus-${port === undefined ? 'host' : 'port'}, expected one or the other`
      );
    return false;
  }
  if (port !== undefined && (!PORT.test(port) || Number(port) > 65535))
    throw new UsageError(
      `demo: found --prometheus-port ${JSON.stringify(port)}, expected an integer from 0 to 65535`
    );
  return {
    ...(host === undefined ? {} : { address: host }),
    ...(port === undefined ? {} : { port: Number(port) }),
  };
}

const demo: CliCommand = async (args, io) => {
  const { values } = parseCommandLine('demo', args, {
    config: { type: 'string', valueName: 'FILE' },
    'prometheus-port': { type: 'string', valueName: 'PORT' },
    'prometheus-host': { type: 'string', valueName: 'ADDRESS' },
    'no-prometheus': { type: 'boolean' },
    workers: { type: 'string', valueName: 'N' },
  });
  if (values.help === true) {
    io.out(DEMO_USAGE);
    return 0;
  }
  const prometheus = prometheusOption(values);
  const workers = (values.workers as string | undefined) ?? '1';
  if (!/^[1-9][0-9]{0,2}$/.test(workers))
    throw new UsageError(
      `demo: found --workers ${JSON.stringify(workers)}, expected an integer from 1 to 999`
    );
  const config = await loadLegacyApiConfig(
    (values.config as string | undefined) ?? defaultDemoConfigPath()
  );
  // The package's own warnings reach stderr through process.emitWarning; the SDK's and the
  // exporters' errors (a failed OTLP export) only through diag, so errors are printed too.
  diag.setLogger(
    {
      error: (message: string) => io.err(`legacy-metrics-api: ${message}`),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true }
  );
  // Listening for signals before starting, so that one during startup is not the default kill.
  const signals = watchSignals();
  try {
    const running = await startDemo({
      config,
      prometheus,
      workers: Number(workers),
      out: io.out,
    });
    io.out('press Ctrl-C to stop');
    await signals.first;
    io.out('stopping (a second Ctrl-C exits at once)');
    await running.stop();
  } finally {
    signals.release();
    diag.disable();
  }
  return 0;
};

const checkConfig: CliCommand = async (args, io) => {
  const { values, positionals } = parseCommandLine(
    'check-config',
    args,
    {},
    { max: 1, name: 'FILE', expected: 'expected a single FILE' }
  );
  if (values.help === true) {
    io.out(CHECK_CONFIG_USAGE);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined)
    throw new UsageError(
      "check-config: found no FILE, expected 'legacy-metrics-api check-config FILE' (- for standard input)"
    );
  const config =
    file === '-'
      ? parseLegacyApiConfig(await io.readStdin(), STDIN_NAME)
      : await loadLegacyApiConfig(file);
  requireLegacyApiListener(config);
  for (const line of describeConfig(config)) io.out(line);
  return 0;
};

/** The commands by name: one line each. */
const COMMANDS: Readonly<Record<string, CliCommand>> = {
  demo,
  'check-config': checkConfig,
  migrate: (args, io) => migrateCommand(args, io.out),
  compare: (args, io) => compareCommand(args, io.out),
};

const PROCESS_IO: CliIo = {
  out: line => process.stdout.write(`${line}\n`),
  err: line => process.stderr.write(`${line}\n`),
  readStdin: () => readConfigStream(process.stdin, STDIN_NAME),
};

/**
 * Runs the command line and resolves to the exit status. Errors meant for a person (usage,
 * configuration, a port in use) are printed as one line on stderr with status 2.
 */
export async function runCli(
  argv: string[],
  out: (line: string) => void = PROCESS_IO.out,
  err: (line: string) => void = PROCESS_IO.err,
  readStdin: () => Promise<string> = PROCESS_IO.readStdin
): Promise<number> {
  const [name, ...args] = argv;
  const io: CliIo = { out, err, readStdin };
  try {
    if (name === undefined || name === '--help' || name === '-h') {
      (name === undefined ? err : out)(USAGE);
      return name === undefined ? EXIT_USAGE : 0;
    }
    if (name === '--version') {
      out(packageVersion());
      return 0;
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (command === undefined) {
      const names = Object.keys(COMMANDS).join(', ');
      throw new UsageError(
        name.startsWith('-')
          ? `unknown option ${JSON.stringify(name)}; expected a command (${names}), --version or --help`
          : `unknown command ${JSON.stringify(name)}; expected one of: ${names}`
      );
    }
    return await command(args, io);
  } catch (error) {
    if (error instanceof LegacyApiError) {
      // One line, whatever the message holds.
      err(`legacy-metrics-api: ${error.message.replace(/\s*\n\s*/g, ' ')}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
