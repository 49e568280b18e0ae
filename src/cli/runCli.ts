import { readConfigStream } from '../config/readConfigText';
import { LegacyApiError } from '../errors';
import { packageVersion } from '../packageInfo';
import { checkConfigCommand } from './checkConfigCommand';
import {
  EXIT_USAGE,
  printUsage,
  STDIN_NAME,
  type CliCommand,
  type CliIo,
} from './cliCommand';
import { compareCommand } from './compareCommand';
import { demoCommand } from './demoCommand';
import { migrateCommand } from './migrateCommand';
import { parseCommandLine } from './parseCommandLine';
import { UsageError } from './UsageError';

const USAGE = `Usage: legacy-metrics-api <command> [options]

Commands:
  demo [--config FILE]  Run a simulated messaging server with the legacy metrics API and Prometheus
  check-config FILE     Validate a configuration file and print its legacy metrics API listeners
  migrate COLLECTD_CONF
                        Turn a collectd curl_json poller into prometheus.yml, recording rules and a report
  compare --legacy URL --prometheus URL
                        Check that the legacy API and the Prometheus exposition give the same numbers
  help [COMMAND]        Show this help, or a command's

Options:
  --version      Print the package's version
  -h, --help     Show this help

Run 'legacy-metrics-api <command> --help' for a command's options.`;

const COMMANDS: Readonly<Record<string, CliCommand>> = {
  demo: demoCommand,
  'check-config': checkConfigCommand,
  migrate: migrateCommand,
  compare: compareCommand,
};

function commandNamed(name: string, where: string): CliCommand {
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name]!;
  throw new UsageError(
    `${where}unknown command ${JSON.stringify(name)}; expected one of: ${Object.keys(COMMANDS).join(', ')}`
  );
}

/** `legacy-metrics-api help [COMMAND]`: the usage, or a command's (as `COMMAND --help`). */
const helpCommand: CliCommand = async (args, io) => {
  const { positional } = parseCommandLine('help', args, {
    options: {},
    positional: { name: 'COMMAND' },
  });
  if (positional === undefined) return printUsage(io.out, USAGE);
  return commandNamed(positional, 'help: ')(['--help'], io);
};

/**
 * The one error mapper: a mistake meant for a person (usage, configuration, migration, a port
 * in use) is one line on stderr and {@link EXIT_USAGE}; anything else is rethrown, for main to
 * print as unexpected.
 */
function exitStatusOf(error: unknown, io: CliIo): number {
  if (!(error instanceof LegacyApiError)) throw error;
  // One line, whatever the message holds.
  io.err(`legacy-metrics-api: ${error.message.replace(/\s*\n\s*/g, ' ')}`);
  return EXIT_USAGE;
}

/** Runs the command line, printing through `out` and `err`, and resolves to the exit status. */
export async function runCli(
  argv: string[],
  out: (line: string) => void,
  err: (line: string) => void,
  readStdin = (): Promise<string> => readConfigStream(process.stdin, STDIN_NAME)
): Promise<number> {
  const [name, ...args] = argv;
  const io: CliIo = { out, err, readStdin };
  try {
    if (name === undefined) {
      err(USAGE);
      return EXIT_USAGE;
    }
    if (name === '--version') {
      out(packageVersion());
      return 0;
    }
    // `--help` is `help` with no command, whatever follows it.
    if (name === '--help' || name === '-h') return await helpCommand([], io);
    if (name === 'help') return await helpCommand(args, io);
    if (name.startsWith('-'))
      throw new UsageError(
        `unknown option ${JSON.stringify(name)}; expected a command (${Object.keys(COMMANDS).join(', ')}), --version or --help`
      );
    return await commandNamed(name, '')(args, io);
  } catch (error) {
    return exitStatusOf(error, io);
  }
}
