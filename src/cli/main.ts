#!/usr/bin/env node
/**
 * `legacy-metrics-api`: the demo messaging server and the configuration checker (see runCli).
 * Errors a person reads exit non-zero with one message and no stack trace.
 */
import { runCli } from './runCli';

runCli(process.argv.slice(2)).then(
  code => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `legacy-metrics-api: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`
    );
    process.exitCode = 1;
  }
);
