import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';
import { LegacyMetricsReader, type TickSlices } from '../src';
import { DEFAULT_READER_OPTIONS } from '../src/reader/options';
import { BaselineReader } from './baselineReader';
import { collectorWork } from './collectorWork';
import { argument, emit, serveCommands } from './ipc';
import { countSdkBucketsInALoop } from './sdkBucketCounts';
import { recordSlices } from './sliceRecorder';
import {
  hostTypeNames,
  isScaleName,
  SCALES,
  UpdateSchedule,
  Workload,
} from './workload';
import { SERVED_SNAPSHOT } from '../src/reader/ServedStore';

/**
 * The host application as its users feel it, run as a child of `run.ts`: a fastify app with a
 * static route, recording into a rotating 10% of its series every second, with either the
 * legacy reader (`--reader legacy`, ticking on its own) or the baseline reader (`--reader
 * baseline`), which asks the SDK for the same aggregation once per slot and drops it. The
 * event loop's delay is sampled at 1 ms resolution; `run.ts` loads the static route with wrk.
 * The difference between the two processes is what the legacy reader adds to the host.
 * `--startup-objects N` has the host itself build N long-lived records from 1 s after it listens,
 * in slices of 2 ms (the pattern of the reader's first tick, which makes every series, without
 * the reader): what any host doing so under load meets from the collector.
 * `--fresh-attributes` has every recording make its attributes object afresh.
 * `--sdk-counts-loop` has the SDK list its exponential histograms' bucket counts in a plain loop
 * (`sdkBucketCounts.ts`).
 */

const UPDATE_BATCHES = 20;
const STARTUP_SLICE_MS = 2;
const STATIC_BODY = Buffer.from('{"metrics":{"status":"ok"}}');

/** The host's own long-lived records (`--startup-objects`), held for the process's life. */
let startupRecords: Map<string, object> | undefined;

/** Builds `count` records kept for the process's life, in slices between which the loop serves. */
function buildStartupRecords(count: number): Map<string, object> {
  const records = new Map<string, object>();
  const slice = (): void => {
    const start = performance.now();
    while (records.size < count) {
      const n = records.size;
      const numbers: number[] = [];
      for (let i = 0; i < 40; i++) numbers.push(n + i + 0.5);
      // A series-like record: numbers, a string, a fraction, an empty list, a few small fields.
      records.set(`record:${n}`, {
        n,
        group: `g${n % 1000}`,
        numbers,
        since: null,
        rate: n * 1.5,
        changes: [],
        seen: 0,
        gen: 1,
      });
      if (n % 16 === 0 && performance.now() - start >= STARTUP_SLICE_MS) break;
    }
    if (records.size < count) setImmediate(slice);
  };
  setTimeout(slice, 1000);
  return records;
}

/** The collector's minor collections in a window, mean duration, and its major ones. */
function collectorSummary(profiler: GCProfiler | undefined): {
  scavengeMeanMs: number;
  majorCollections: number;
} {
  const work = collectorWork(profiler?.stop()?.statistics ?? []);
  return {
    scavengeMeanMs: work.scavenges === 0 ? 0 : work.scavengeMs / work.scavenges,
    majorCollections: work.markCompacts,
  };
}

async function main(): Promise<void> {
  const scaleName = argument('scale') ?? 'S';
  if (!isScaleName(scaleName)) throw new Error(`unknown scale ${scaleName}`);
  const scale = SCALES[scaleName];
  const kind = argument('reader') ?? 'legacy';
  if (process.argv.includes('--sdk-counts-loop')) countSdkBucketsInALoop();
  const slotMs = DEFAULT_READER_OPTIONS.slotMs;

  const sliceMs = argument('slice-ms');
  const legacy =
    kind === 'legacy'
      ? new LegacyMetricsReader({
          hostTypes: hostTypeNames(scale),
          ...(sliceMs === undefined ? {} : { sliceMs: Number(sliceMs) }),
        })
      : undefined;
  const sliceRecord = legacy === undefined ? undefined : recordSlices();
  const baseline =
    legacy === undefined
      ? new BaselineReader(DEFAULT_READER_OPTIONS.histogramMaxBuckets)
      : undefined;
  const provider = new MeterProvider({ readers: [(legacy ?? baseline)!] });
  const workload = new Workload(
    provider.getMeter('bench'),
    scale,
    process.argv.includes('--fresh-attributes')
  );
  workload.populate();

  // The baseline collects on the legacy reader's schedule: once per slot, aligned, never overlapping.
  let collectTimer: NodeJS.Timeout | undefined;
  let ticks = 0;
  const collectOnce = (): void => {
    collectTimer = setTimeout(
      () => {
        void baseline!.forceFlush().finally(() => {
          ticks++;
          collectOnce();
        });
      },
      slotMs - (performance.now() % slotMs)
    );
  };
  if (baseline !== undefined) collectOnce();
  const tickCount = (): number =>
    legacy?.[SERVED_SNAPSHOT]().generation ?? ticks;

  const app = Fastify({ logger: false });
  app.get('/static', (_request, reply) => {
    void reply.header('content-type', 'application/json').send(STATIC_BODY);
  });

  const schedule = new UpdateSchedule(workload, UPDATE_BATCHES);
  const updater = setInterval(() => schedule.next(), 1000 / UPDATE_BATCHES);

  // The collector's work in the window, from `window` to `usage`.
  let collector: GCProfiler | undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  let windowStart = { cpu: process.cpuUsage(), wall: 0, ticks: 0 };
  // The longest slice of the legacy reader's own work in the window, tick by tick.
  const slices = {
    generation: 0,
    longestMs: 0,
    longestCpuMs: 0,
    max: 0,
    perTick: [] as number[],
  };
  const sliceWatch = setInterval(() => {
    if (legacy === undefined) return;
    const generation = legacy[SERVED_SNAPSHOT]().generation;
    if (generation === slices.generation) return;
    slices.generation = generation;
    // Absent from readers built before slicing: their before-and-after runs compare.
    const last: TickSlices | undefined = legacy.lastTickSlices;
    if (last === undefined) return;
    slices.longestMs = Math.max(slices.longestMs, last.longestMs);
    slices.longestCpuMs = Math.max(slices.longestCpuMs, last.longestCpuMs);
    slices.max = Math.max(slices.max, last.slices);
    slices.perTick.push(last.longestMs);
  }, 100);
  /** The `fraction` quantile of the ticks' longest slices, by rank. */
  const tickSliceQuantile = (fraction: number): number | null => {
    if (legacy === undefined || slices.perTick.length === 0) return null;
    const sorted = [...slices.perTick].sort((a, b) => a - b);
    return sorted[
      Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))
    ]!;
  };
  serveCommands({
    /** Starts a measurement window. */
    window() {
      windowStart = {
        cpu: process.cpuUsage(),
        wall: performance.now(),
        ticks: tickCount(),
      };
      loopDelay.reset();
      sliceRecord?.window();
      collector?.stop();
      collector = new GCProfiler();
      collector.start();
      Object.assign(slices, {
        longestMs: 0,
        longestCpuMs: 0,
        max: 0,
        perTick: [],
      });
      return {};
    },
    /** The event loop's delay since `window`, in ms, and the process's CPU per second. */
    usage() {
      const cpu = process.cpuUsage(windowStart.cpu);
      const seconds = (performance.now() - windowStart.wall) / 1000;
      return {
        ticks: tickCount() - windowStart.ticks,
        cpuMsPerSecond: (cpu.user + cpu.system) / 1000 / seconds,
        loopDelayP50Ms: loopDelay.percentile(50) / 1e6,
        loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
        loopDelayMaxMs: loopDelay.max / 1e6,
        longestSliceMs: legacy === undefined ? null : slices.longestMs,
        longestSliceCpuMs: legacy === undefined ? null : slices.longestCpuMs,
        slicesPerTickMax: legacy === undefined ? null : slices.max,
        tickLongestSliceMedianMs: tickSliceQuantile(0.5),
        tickLongestSliceP90Ms: tickSliceQuantile(0.9),
        ticksPast5Ms:
          legacy === undefined
            ? null
            : slices.perTick.filter(ms => ms > 5).length,
        slicesByCollector: sliceRecord?.summary() ?? null,
        ...collectorSummary(collector),
        startupRecords: startupRecords?.size ?? 0,
      };
    },
  });

  const stop = (): void => {
    clearInterval(updater);
    clearInterval(sliceWatch);
    clearTimeout(collectTimer);
    void Promise.allSettled([app.close(), provider.shutdown()]).then(() =>
      process.exit(0)
    );
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);

  await app.listen({ port: 0, host: '127.0.0.1' });
  const startupObjects = Number(argument('startup-objects') ?? 0);
  if (startupObjects > 0) startupRecords = buildStartupRecords(startupObjects);
  const address = app.server.address();
  emit('listening', {
    port: typeof address === 'object' && address !== null ? address.port : 0,
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
