/** The shape of every command of `legacy-metrics-api`. */

/** Where a command reads and writes. */
export interface CliIo {
  /** Prints one line of output. */
  out(line: string): void;
  /** Prints one line of diagnostics. */
  err(line: string): void;
  /** All of standard input, for `check-config -`, up to MAX_CONFIG_BYTES (4 MiB). */
  readStdin(): Promise<string>;
}

/**
 * A command: its arguments (after the command's name) in, its exit status out. A mistake a
 * person made is thrown as a LegacyApiError (UsageError, ConfigError, MigrationError…), which
 * runCli prints as one line with {@link EXIT_USAGE}.
 */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

/** Prints a command's usage, as its `--help` does; the exit status, 0. */
export function printUsage(out: CliIo['out'], usage: string): number {
  out(usage);
  return 0;
}

/** Exit status of a usage or configuration error, as the original server's startup checks used. */
export const EXIT_USAGE = 2;

/** The name `check-config -` gives standard input in its messages. */
export const STDIN_NAME = '<stdin>';
