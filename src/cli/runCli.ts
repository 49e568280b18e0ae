import { LegacyApiError } from '../errors';
import { DEFAULT_DEMO_OPTIONS, startDemo } from './demoCommand';
import { UsageError } from './UsageError';

const USAGE = `Usage: legacy-metrics-api <command> [options]

Commands:
  demo    Run a simulated messaging server with the legacy metrics API and Prometheus

Run 'legacy-metrics-api <command> --help' for a command's options.`;

const DEMO_USAGE = `Usage: legacy-metrics-api demo

Runs a simulated messaging server for two host types. It serves the legacy metrics API on
http://127.0.0.1:${DEFAULT_DEMO_OPTIONS.legacyPort}/api/metrics and Prometheus on
http://127.0.0.1:${DEFAULT_DEMO_OPTIONS.prometheusPort}/metrics until interrupted (Ctrl-C).`;

/** Exit status of a usage or configuration error, as the original server's startup checks used. */
export const EXIT_USAGE = 2;

/** Waits for SIGINT or SIGTERM. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function demo(args: string[], out: (line: string) => void): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out(DEMO_USAGE);
    return 0;
  }
  if (args.length > 0) throw new UsageError(`demo: unexpected argument ${JSON.stringify(args[0])}; see 'legacy-metrics-api demo --help'`);
  const running = await startDemo({ ...DEFAULT_DEMO_OPTIONS, out });
  out('press Ctrl-C to stop');
  await interrupted();
  out('stopping');
  await running.stop();
  return 0;
}

/**
 * Runs the command line and resolves to the exit status. Errors meant for a person (usage,
 * configuration, a port in use) are printed as one line on stderr with status 2.
 */
export async function runCli(
  argv: string[],
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
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
        return await demo(args, out);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; expected one of: demo`);
    }
  } catch (error) {
    if (error instanceof LegacyApiError) {
      err(`legacy-metrics-api: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
