import { diag, DiagLogLevel } from '@opentelemetry/api';
import { loadLegacyApiConfig } from '../config/loadLegacyApiConfig';
import { LegacyApiError } from '../errors';
import { describeConfig } from './checkConfigCommand';
import { compareCommand } from './compareCommand';
import {
  DEFAULT_DEMO_OPTIONS,
  defaultDemoConfigPath,
  startDemo,
} from './demoCommand';
import { migrateCommand } from './migrateCommand';
import { UsageError } from './UsageError';

const COMMANDS = ['demo', 'check-config', 'migrate', 'compare'];

const USAGE = `Usage: legacy-metrics-api <command> [options]

Commands:
  demo [--config FILE]  Run a simulated messaging server with the legacy metrics API and Prometheus
  check-config FILE     Validate a configuration file and print its legacy metrics API listeners
  migrate COLLECTD_CONF
                        Turn a collectd curl_json poller into prometheus.yml, recording rules and a report
  compare --legacy URL --prometheus URL
                        Check that the legacy API and the Prometheus exposition give the same numbers

Run 'legacy-metrics-api <command> --help' for a command's options.`;

const DEMO_USAGE = `Usage: legacy-metrics-api demo [--config FILE]

Runs a simulated messaging server for two host types. It serves the legacy metrics API on the
listeners of the messaging server configuration FILE and Prometheus on
http://127.0.0.1:${DEFAULT_DEMO_OPTIONS.prometheusPort}/metrics until interrupted (Ctrl-C).

Options:
  --config FILE  TOML or Erlang-term configuration file (default: ${DEFAULT_DEMO_OPTIONS.config}
                 in this package, which serves http://127.0.0.1:8088/api/metrics)
  -h, --help     Show this help`;

const CHECK_CONFIG_USAGE = `Usage: legacy-metrics-api check-config FILE

Validates the legacy metrics API listeners of a messaging server configuration FILE (TOML or
the older Erlang-term form) and prints each listener with the settings in effect. Exits 0 when
the file is valid, 2 with a one-line message naming the place at fault when it is not.

Options:
  -h, --help     Show this help`;

/** Exit status of a usage or configuration error, as the original server's startup checks used. */
export const EXIT_USAGE = 2;

/** Waits for SIGINT or SIGTERM. */
function interrupted(): Promise<void> {
  return new Promise(resolve => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

function isHelp(arg: string): boolean {
  return arg === '--help' || arg === '-h';
}

/** The `--config` file of `demo`, or undefined; rejects anything else. */
function demoConfigArgument(args: readonly string[]): string | undefined {
  let config: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    let value: string | undefined;
    if (arg === '--config') {
      value = args[++i];
      if (value === undefined)
        throw new UsageError(
          'demo: found --config without a file, expected --config FILE'
        );
    } else if (arg.startsWith('--config=')) {
      value = arg.slice('--config='.length);
    } else {
      const what = arg.startsWith('-')
        ? 'unknown option'
        : 'unexpected argument';
      throw new UsageError(
        `demo: ${what} ${JSON.stringify(arg)}; expected --config FILE or --help`
      );
    }
    if (value === '')
      throw new UsageError(
        'demo: found an empty --config, expected --config FILE'
      );
    if (config !== undefined)
      throw new UsageError(
        `demo: found --config a second time (${JSON.stringify(value)}), expected it once`
      );
    config = value;
  }
  return config;
}

async function demo(
  args: string[],
  out: (line: string) => void,
  err: (line: string) => void
): Promise<number> {
  if (args.some(isHelp)) {
    out(DEMO_USAGE);
    return 0;
  }
  const config = await loadLegacyApiConfig(
    demoConfigArgument(args) ?? defaultDemoConfigPath()
  );
  // The no-authentication warning of a listener bound beyond loopback goes to stderr.
  diag.setLogger(
    {
      error: (message: string) => err(`legacy-metrics-api: ${message}`),
      warn: (message: string) => err(`legacy-metrics-api: warning: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true }
  );
  try {
    const running = await startDemo({
      config,
      prometheusPort: DEFAULT_DEMO_OPTIONS.prometheusPort,
      out,
    });
    out('press Ctrl-C to stop');
    await interrupted();
    out('stopping');
    await running.stop();
  } finally {
    diag.disable();
  }
  return 0;
}

async function checkConfig(
  args: string[],
  out: (line: string) => void
): Promise<number> {
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (isHelp(arg)) {
      out(CHECK_CONFIG_USAGE);
      return 0;
    }
    if (arg === '--') {
      files.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      throw new UsageError(
        `check-config: unknown option ${JSON.stringify(arg)}; expected FILE or --help`
      );
    }
    files.push(arg);
  }
  if (files.length === 0)
    throw new UsageError(
      "check-config: found no FILE, expected 'legacy-metrics-api check-config FILE'"
    );
  if (files.length > 1)
    throw new UsageError(
      `check-config: unexpected argument ${JSON.stringify(files[1])}; expected a single FILE`
    );
  for (const line of describeConfig(await loadLegacyApiConfig(files[0]!)))
    out(line);
  return 0;
}

/**
 * Runs the command line and resolves to the exit status. Errors meant for a person (usage,
 * configuration, a port in use) are printed as one line on stderr with status 2.
 */
export async function runCli(
  argv: string[],
  out: (line: string) => void = line => process.stdout.write(`${line}\n`),
  err: (line: string) => void = line => process.stderr.write(`${line}\n`)
): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
        (command === undefined ? err : out)(USAGE);
        return command === undefined ? EXIT_USAGE : 0;
      case 'demo':
        return await demo(args, out, err);
      case 'check-config':
        return await checkConfig(args, out);
      case 'migrate':
        return await migrateCommand(args, out);
      case 'compare':
        return await compareCommand(args, out);
      default:
        throw new UsageError(
          command.startsWith('-')
            ? `unknown option ${JSON.stringify(command)}; expected a command (${COMMANDS.join(', ')}) or --help`
            : `unknown command ${JSON.stringify(command)}; expected one of: ${COMMANDS.join(', ')}`
        );
    }
  } catch (error) {
    if (error instanceof LegacyApiError) {
      // One line, whatever the message holds.
      err(`legacy-metrics-api: ${error.message.replace(/\s*\n\s*/g, ' ')}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
