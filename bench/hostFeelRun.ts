import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ChildChannel } from './ipc';
import type { SliceRecord } from './sliceRecorder';
import { runWrk, type LoadResult } from './wrk';
import type { Scale } from './workload';

/** What the host application feels of its reader during one load window. */
export interface HostFeelRow {
  scale: string;
  reader: 'legacy' | 'baseline';
  ticks: number;
  cpuMsPerSecond: number;
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** The longest slice of the legacy reader's own work in the window, wall clock and thread CPU. */
  longestSliceMs: number | null;
  longestSliceCpuMs: number | null;
  /** The most slices one tick took in the window. */
  slicesPerTickMax: number | null;
  /**
   * Each tick's longest slice, by the wall clock: its median and p90 over the window's ticks,
   * and how many ticks had one past 5 ms. The maximum alone is one tick's.
   */
  tickLongestSliceMedianMs: number | null;
  tickLongestSliceP90Ms: number | null;
  ticksPast5Ms: number | null;
  /** The slices less the collector's pauses inside them (legacy only). */
  slicesByCollector: SliceRecord | null;
  /** The collector's minor collections in the window, mean duration: 1–2 ms, or about 17 in its costly regime. */
  scavengeMeanMs: number;
  /** The collector's major collections in the window. */
  majorCollections: number;
  staticRoute: LoadResult;
  /** The machine's 1-minute load average when the window ended. */
  load: number;
}

/** The value of `--v8-flag`: a V8 option for the host-feel processes, as given. */
export function v8FlagValue(value: string | undefined): string {
  if (value === undefined || !value.startsWith('--'))
    throw new Error(
      `--v8-flag needs a V8 option starting with -- (got ${value})`
    );
  return value;
}

/**
 * Runs the host application (`hostFeel.ts`) with each reader in turn and loads its static
 * route with wrk for `seconds`, after `warmupSeconds` of warm-up (the first ticks included).
 */
export async function measureHostFeel(
  scale: Scale,
  options: {
    seconds: number;
    warmupSeconds: number;
    connections: number;
    /** The legacy reader's sliceMs; its default when undefined. */
    sliceMs: number | undefined;
    /** V8 options of both processes beside the bench's own (`--min-semi-space-size=16`, …). */
    hostV8Flags: readonly string[];
    /** The readers to run, in order; both by default. */
    readers?: readonly ('legacy' | 'baseline')[];
    /** Long-lived records the host builds itself once it listens (`hostFeel.ts --startup-objects`). */
    startupObjects?: number;
    /** An attributes object made for each recording (`hostFeel.ts --fresh-attributes`). */
    freshAttributes?: boolean;
    /** The SDK lists bucket counts in a loop (`hostFeel.ts --sdk-counts-loop`). */
    sdkCountsLoop?: boolean;
  }
): Promise<HostFeelRow[]> {
  const rows: HostFeelRow[] = [];
  for (const reader of options.readers ?? (['legacy', 'baseline'] as const)) {
    const child = fork(
      join(__dirname, 'hostFeel.js'),
      [
        '--scale',
        scale.name,
        '--reader',
        reader,
        ...(options.sliceMs === undefined
          ? []
          : ['--slice-ms', String(options.sliceMs)]),
        ...(options.startupObjects === undefined
          ? []
          : ['--startup-objects', String(options.startupObjects)]),
        ...(options.freshAttributes === true ? ['--fresh-attributes'] : []),
        ...(options.sdkCountsLoop === true ? ['--sdk-counts-loop'] : []),
      ],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        execArgv: [...process.execArgv, ...options.hostV8Flags],
      }
    );
    const channel = new ChildChannel(child);
    try {
      const listening = await channel.nextEvent('listening', 600_000);
      const url = `http://127.0.0.1:${String(listening['port'])}/static`;
      const load = { url, connections: options.connections };
      // Past the first ticks, which make every series: steady state is what is measured.
      await runWrk({ ...load, seconds: Math.max(3, options.warmupSeconds) });
      await channel.call('window');
      const staticRoute = await runWrk({ ...load, seconds: options.seconds });
      const usage =
        await channel.call<
          Omit<HostFeelRow, 'scale' | 'reader' | 'staticRoute' | 'load'>
        >('usage');
      rows.push({
        ...usage,
        scale: scale.name,
        reader,
        staticRoute,
        load: loadavg()[0]!,
      });
    } finally {
      child.kill('SIGTERM');
      await new Promise(done => child.once('exit', done));
    }
  }
  return rows;
}

const ms = (value: number | null | undefined): string =>
  value === null || value === undefined ? '–' : value.toFixed(1);

const byCollector = (record: SliceRecord | null): string =>
  record === null
    ? '–'
    : `${ms(record.longestOwnMs)} (${ms(record.collectorInLongestMs)} / ${ms(record.waitInLongestMs)}; ${record.slicesWithCollector} of ${record.slices})`;

const byMarking = (record: SliceRecord | null): string =>
  record === null
    ? '–'
    : `${ms(record.longestOwnOutsideMarkingMs)} / ${ms(record.longestOwnInMarkingMs)} (${record.slicesInMarking})`;

/** The table of what the host feels, with the legacy reader's difference from the baseline. */
export function hostFeelTable(rows: readonly HostFeelRow[]): string {
  const lines = [
    "| scale | reader | ticks | loop delay p50 ms | loop delay p99 ms | loop delay max ms | static route p99 ms | static route req/s | process CPU ms/s | longest reader slice ms (wall / thread CPU) | a tick's longest slice, median / p90 ms (ticks past 5 ms) | longest slice less the collector's pauses and the waits for a CPU in it ms (the longest's pauses / waits; slices a pause fell in) | the same outside / during the collector's marking ms (slices during it) | slices per tick (max) | scavenge mean ms | load avg |",
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.scale} | ${row.reader} | ${row.ticks} | ${ms(row.loopDelayP50Ms)} | ${ms(row.loopDelayP99Ms)} | ` +
        `${ms(row.loopDelayMaxMs)} | ${ms(row.staticRoute.p99Ms)} | ${Math.round(row.staticRoute.requestsPerSecond)} | ` +
        `${Math.round(row.cpuMsPerSecond)} | ${ms(row.longestSliceMs)} / ${ms(row.longestSliceCpuMs)} | ` +
        `${ms(row.tickLongestSliceMedianMs)} / ${ms(row.tickLongestSliceP90Ms)} (${row.ticksPast5Ms ?? '–'}) | ${byCollector(row.slicesByCollector)} | ${byMarking(row.slicesByCollector)} | ${row.slicesPerTickMax ?? '–'} | ${ms(row.scavengeMeanMs)} | ${row.load.toFixed(1)} |`
    );
  for (const legacy of rows.filter(r => r.reader === 'legacy')) {
    const baseline = rows.find(
      r => r.reader === 'baseline' && r.scale === legacy.scale
    );
    if (baseline === undefined) continue;
    const p99 = legacy.loopDelayP99Ms - baseline.loopDelayP99Ms;
    const slice = legacy.longestSliceMs ?? NaN;
    const sliceCpu = legacy.longestSliceCpuMs ?? NaN;
    lines.push(
      '',
      `${legacy.scale}: the legacy reader adds ${ms(p99)} ms to the host's p99 loop delay (target ≤ 5) ` +
        `and ${ms((legacy.staticRoute.p99Ms ?? NaN) - (baseline.staticRoute.p99Ms ?? NaN))} ms to the static route's p99; ` +
        `its longest slice beyond the SDK's collect is ${ms(slice)} ms of wall clock, ${ms(sliceCpu)} ms of its thread's CPU, ` +
        `${ms(legacy.slicesByCollector?.longestOwnMs)} ms less the collector's pauses and the waits for a CPU inside it (target ≤ 5), ` +
        `${ms(legacy.slicesByCollector?.longestOwnOutsideMarkingMs)} ms outside the collector's marking`
    );
  }
  return lines.join('\n');
}
