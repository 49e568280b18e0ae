import {
  outcomeTable,
  runHostileRequests,
  type HostileOutcome,
} from '../test/support/hostileRequests';

/**
 * `npm run fuzz [-- --requests 10000 --seed 1 --concurrency 16]`: sends hostile requests over raw
 * sockets to real listeners of this package (paths, percent-encoding, NUL and invalid UTF-8
 * bytes, methods, Accept, header counts, HTTP/1.0, pipelining, absolute-form, Expect, bodies),
 * prints a table of statuses by kind, and exits 1 on any 5xx other than 501 (503 only from the
 * listener whose reader is not registered), any hang, or any body that does not parse as its
 * Content-Type says.
 */
function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value <= 0) {
    console.error(
      `--${name}: found ${process.argv[at + 1]}, expected a positive integer`
    );
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const count = option('requests', 10_000);
  const seed = option('seed', 1);
  const started = Date.now();
  const outcomes: HostileOutcome[] = await runHostileRequests({
    count,
    seed,
    concurrency: option('concurrency', 16),
    hangMs: 15_000,
  });
  for (const line of outcomeTable(outcomes)) console.log(line);
  const failures = outcomes.filter(o => o.failure !== undefined);
  console.log(
    `${outcomes.length} responses to ${count} requests (seed ${seed}) in ${((Date.now() - started) / 1000).toFixed(1)} s; ${failures.length} unexpected`
  );
  for (const failure of failures.slice(0, 20)) {
    console.log(`  ${failure.kind}: ${failure.status}: ${failure.failure}`);
    if (process.argv.includes('--verbose')) {
      console.log(
        `    sent ${JSON.stringify(failure.request?.toString('latin1').slice(0, 300))}`
      );
      console.log(
        `    got  ${JSON.stringify(failure.response?.toString('latin1').slice(0, 300))}`
      );
    }
  }
  process.exitCode = failures.length === 0 ? 0 : 1;
}

void main();
