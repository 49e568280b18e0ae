import { fork } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ChildChannel, argument, numberArgument } from './ipc';
import { DEPRECATED_PREFIX, legacyEndpoints } from './legacyCases';
import { checkWrk, runWrk } from './wrk';
import { isScaleName, sampleOf, SCALES } from './workload';

/**
 * `npm run bench:pairs [-- --scale L --pairs 12 --seconds 2 --connections 10 --server <server.js>]`
 *
 * Each legacy endpoint, plain and with deprecation headers and usage telemetry, against its
 * ceiling (a static route sending the same body), in many short pairs: a ceiling round, then
 * the plain endpoint, then the deprecated one, again and again in one server process. A pair's
 * ratio compares two loads a few seconds apart, so the drift of a shared machine between rounds
 * falls on both of its sides; the median of the pairs is the figure, the spread beside it.
 * `--server` runs another tree's built bench server (its `.bench/build/bench/server.js`), so that
 * a tree before a change and after it are measured by the same driver.
 */

const ACCEPT = { accept: 'application/json' };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface PairRow {
  readonly path: string;
  readonly ceilingRps: number;
  readonly plain: readonly number[];
  readonly deprecated: readonly number[];
}

async function main(): Promise<void> {
  const wrkMissing = checkWrk();
  if (wrkMissing !== undefined) throw new Error(wrkMissing);
  const scaleName = argument('scale') ?? 'L';
  if (!isScaleName(scaleName))
    throw new Error(`--scale: found ${scaleName}, expected S, M, L or XL`);
  const pairs = numberArgument('pairs', 12);
  const seconds = numberArgument('seconds', 2);
  const connections = numberArgument('connections', 10);
  const server = resolve(argument('server') ?? join(__dirname, 'server.js'));

  const child = fork(server, ['--scale', scaleName], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const channel = new ChildChannel(child);
  try {
    const listening = await channel.nextEvent('listening', 600_000);
    const base = `http://127.0.0.1:${String(listening['port'])}`;
    const { hostType, metric } = sampleOf(SCALES[scaleName]);
    const endpoints = legacyEndpoints(hostType, metric);
    const rps = async (path: string): Promise<number> =>
      (
        await runWrk({
          url: `${base}${path}`,
          connections,
          seconds,
          headers: ACCEPT,
        })
      ).requestsPerSecond;
    const rows: PairRow[] = [];
    for (const [index, path] of endpoints.entries()) {
      await channel.call('ceiling', { index, path });
      const ceiling = `/ceiling/${index}`;
      const deprecated = path.replace(/^\/api/, DEPRECATED_PREFIX);
      for (const warm of [ceiling, path, deprecated]) await rps(warm);
      const ceilings: number[] = [];
      const plain: number[] = [];
      const withBoth: number[] = [];
      for (let pair = 0; pair < pairs; pair++) {
        const ceilingRps = await rps(ceiling);
        ceilings.push(ceilingRps);
        plain.push((await rps(path)) / ceilingRps);
        withBoth.push((await rps(deprecated)) / ceilingRps);
      }
      const shown = path.replace(hostType, '<one>').replace(metric, '<metric>');
      rows.push({
        path: shown,
        ceilingRps: median(ceilings),
        plain,
        deprecated: withBoth,
      });
      console.error(`[${scaleName}] ${shown}: ${pairs} pairs done`);
    }
    const figure = (ratios: readonly number[]): string =>
      `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
    console.log(
      `\n${server}, scale ${scaleName}, ${pairs} pairs of ${seconds} s rounds, ${connections} connections\n`
    );
    console.log(
      '| endpoint | ceiling req/s, median | plain / ceiling, median (range) | deprecation + usage / ceiling, median (range) |'
    );
    console.log('|---|--:|--:|--:|');
    for (const row of rows)
      console.log(
        `| ${row.path} | ${Math.round(row.ceilingRps)} | ${figure(row.plain)} | ${figure(row.deprecated)} |`
      );
    const mean = (pick: (row: PairRow) => readonly number[]) =>
      rows.reduce((sum, row) => sum + median(pick(row)), 0) / rows.length;
    console.log(
      `\nmean of the endpoints' medians: plain ${mean(row => row.plain).toFixed(3)}, ` +
        `deprecation + usage ${mean(row => row.deprecated).toFixed(3)}`
    );
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
