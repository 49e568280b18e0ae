#!/usr/bin/env node
/**
 * `legacy-metrics-api`: the demo messaging server, the configuration checker and the migration
 * tools (see runCli).
 * Errors a person reads exit non-zero with one message and no stack trace.
 */
import { runCli } from './runCli';

/**
 * A reader that went away (`check-config FILE | head -1`) or a closed stream is no error of
 * ours: stop writing and end quietly with status 0, as the demo does on SIGTERM.
 */
function endQuietlyWhenClosed(stream: NodeJS.WriteStream): void {
  stream.on('error', () => {
    closed = true;
    if (process.listenerCount('SIGTERM') > 0)
      process.emit('SIGTERM', 'SIGTERM');
  });
}

let closed = false;
endQuietlyWhenClosed(process.stdout);
endQuietlyWhenClosed(process.stderr);

const write =
  (stream: NodeJS.WriteStream) =>
  (line: string): void => {
    if (!closed) stream.write(`${line}\n`);
  };

runCli(
  process.argv.slice(2),
  write(process.stdout),
  write(process.stderr)
).then(
  code => {
    process.exitCode = closed ? 0 : code;
  },
  (error: unknown) => {
    if (closed) return;
    process.stderr.write(
      `legacy-metrics-api: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`
    );
    process.exitCode = 1;
  }
);
