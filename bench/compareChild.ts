import { runCli } from '../src/cli/runCli';

/**
 * The child of `compareScale.ts`: `legacy-metrics-api compare` with the arguments given, its
 * output counted rather than kept; reports its exit status, wall time, peak RSS and the last
 * line of its output over IPC.
 */
async function main(): Promise<void> {
  let lines = 0;
  let last = '';
  const startedAt = performance.now();
  const code = await runCli(
    ['compare', ...process.argv.slice(2)],
    line => {
      lines++;
      last = line.slice(line.lastIndexOf('\n') + 1);
    },
    line => process.stderr.write(`${line}\n`)
  );
  process.send!({
    code,
    wallMs: performance.now() - startedAt,
    // resourceUsage().maxRSS is in kilobytes.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    lines,
    last,
  });
  process.disconnect();
}

void main();
