import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { GCProfiler, type GCProfilerResult } from 'node:v8';
import { collectorWork } from './collectorWork';
import {
  MeterProvider,
  type ResourceMetrics,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { getOrMake } from '../src/getOrMake';
import { LegacyMetricsReader } from '../src';
import { MetricStore } from '../src/reader/MetricStore';
import {
  DEFAULT_READER_OPTIONS,
  resolveReaderOptions,
} from '../src/reader/options';
import { BaselineReader } from './baselineReader';
import { countSdkBucketsInALoop } from './sdkBucketCounts';
import { jsonSerializer } from '../src/snapshot/jsonSerializer';
import { argument, emit } from './ipc';
import {
  hostTypeNames,
  isScaleName,
  kindOfMetric,
  sampleOf,
  SCALES,
  Workload,
  type Kind,
} from './workload';
import { SERVED_SNAPSHOT } from '../src/reader/ServedStore';

/**
 * Measures, in a process of its own (run with --expose-gc), what the reader costs at one scale:
 * the CPU of one tick and the heap it keeps. `--reader legacy` registers a LegacyMetricsReader;
 * `--reader baseline` registers a reader that asks the SDK for exactly the same aggregation
 * (delta temporality, exponential histograms, the same cardinality limit) and discards what it
 * collects, so that the difference between the two is what the legacy reader holds beyond the SDK.
 * `--reader store` times the legacy store alone: the baseline reader's `collect()` (the same
 * aggregation, outside the timing, and no timer of its own to take collections in between)
 * hands each collection to a store, whose unsliced expire, apply and publish are timed. `--slice-ms N` sets the reader's `sliceMs` (a large one: one slice per tick);
 * `--profile <file>` writes a CPU profile of the measured ticks alone; `--apply-first` has the
 * store alone apply before it expires, as the reader does since the two were fused; `--by-kind`
 * has it apply each kind's instruments apart and reports the CPU of each per data point.
 *
 * Time is simulated: the reader's clock is a variable that advances one slot per tick, so a
 * full 60 s window of slots is reached in seconds. Each tick is preceded by the updates of one
 * second (a rotating 10% of the series) and timed alone, with process.cpuUsage and the wall clock.
 * `cycleCpuMs` is the process's CPU per measured tick together with its second of updates: the
 * collector's work that a tick causes counts there wherever it lands, in the tick or after it.
 * `slicesMs` is the legacy reader's slices of a tick together, by the wall clock: its own time
 * on the event loop, beyond the SDK's collect, without the collector's tasks that run between
 * slices (which `tickCpuMs`, the process's CPU, counts when they land in the tick).
 * `gc` is the collector's main-thread time per measured tick and what its scavenges promoted;
 * `collectionsInTicks` how many measured ticks a collector's pause landed in, and the CPU of
 * the others;
 * `--inert-objects N` holds N small objects (about 124 B each) throughout, as a host's own heap;
 * `--fresh-attributes` has every recording make its attributes object afresh.
 * `--sdk-counts-loop` has the SDK list its exponential histograms' bucket counts in a plain loop
 * (`sdkBucketCounts.ts`), to show what its `Buckets.counts()` costs the collect.
 * `--paced` (in a process forked by `readerPairs.ts`) waits for a message before each measured
 * cycle and reports, at each, the process's CPU so far: so that two processes take turns, cycle
 * by cycle, and the machine's drift falls on both alike.
 */

/** The slot (`--slot-ms N`, the reader's default unless given): each tick brings its updates. */
const SLOT_MS = Number(argument('slot-ms') ?? DEFAULT_READER_OPTIONS.slotMs);
const WINDOW_SLOTS = DEFAULT_READER_OPTIONS.windowMs / SLOT_MS;

function summary(values: number[]): {
  mean: number;
  p10: number;
  median: number;
  p90: number;
  max: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    p10: at(0.1),
    median: at(0.5),
    p90: at(0.9),
    max: sorted[sorted.length - 1]!,
  };
}

/** A CPU profile of the measured ticks alone (`--profile <file>`), for Chrome's DevTools. */
async function startProfile(): Promise<{
  stopInto(file: string): Promise<void>;
}> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // Every 100 µs, not the default 1 ms: a tick of about 10 ms then gets a hundred samples, not ten.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return {
    async stopInto(file) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/**
 * The collector's work in the measured ticks, per tick (see {@link collectorWork}). Two runs of
 * one process can differ most here, so a share by difference is read beside these figures.
 */
function gcPerTick(
  statistics: GCProfilerResult['statistics'],
  ticks: number
): { scavengeMs: number; markCompactMs: number; promotedMB: number } {
  const work = collectorWork(statistics);
  return {
    scavengeMs: work.scavengeMs / ticks,
    markCompactMs: work.markCompactMs / ticks,
    promotedMB: work.promotedMB / ticks,
  };
}

interface KindCost {
  cpuMs: number;
  points: number;
}

/**
 * The store's apply of one collection, one kind of instrument at a time, each timed apart: the
 * workload's metric names say their kind.
 */
function applyByKind(
  store: MetricStore,
  costs: Map<Kind, KindCost>,
  resourceMetrics: ResourceMetrics,
  slot: number,
  monotonicMs: number
): void {
  const parts = new Map<Kind, ScopeMetrics[]>();
  for (const scopeMetrics of resourceMetrics.scopeMetrics)
    for (const metric of scopeMetrics.metrics)
      getOrMake(parts, kindOfMetric(metric.descriptor.name), () => []).push({
        scope: scopeMetrics.scope,
        metrics: [metric],
      });
  for (const [kind, scopeMetrics] of parts) {
    const cost = getOrMake(costs, kind, () => ({ cpuMs: 0, points: 0 }));
    const cpu = process.cpuUsage();
    store.apply(
      { resource: resourceMetrics.resource, scopeMetrics },
      slot,
      monotonicMs
    );
    const spent = process.cpuUsage(cpu);
    cost.cpuMs += (spent.user + spent.system) / 1000;
    for (const { metrics } of scopeMetrics)
      cost.points += metrics[0]!.dataPoints.length;
  }
}

interface KindFigures {
  msPerTick: number;
  pointsPerTick: number;
  usPerPoint: number;
}

/** Per kind: CPU ms per tick, data points per tick, and µs per data point. */
function perPoint(
  costs: ReadonlyMap<Kind, KindCost>,
  ticks: number
): Partial<Record<Kind, KindFigures>> {
  const result: Partial<Record<Kind, KindFigures>> = {};
  for (const [kind, { cpuMs, points }] of costs)
    result[kind] = {
      msPerTick: cpuMs / ticks,
      pointsPerTick: points / ticks,
      usPerPoint: (1000 * cpuMs) / points,
    };
  return result;
}

async function collectGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise(resolve => setImmediate(resolve));
  }
}

/** The process's and its main thread's CPU so far, in ms: what a paced cycle reports. */
function cpuSoFar(): { cpuMs: number; threadCpuMs: number } {
  const cpu = process.cpuUsage();
  const thread = process.threadCpuUsage();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    threadCpuMs: (thread.user + thread.system) / 1000,
  };
}

/**
 * With `--paced`, waits for the parent's turn to run the next cycle, and reports the CPU used
 * so far (`cpuAtTurn`, counted from one turn to the next by the parent, so that the collector's
 * work that runs while the process waits counts in the cycle before) and the last tick's own.
 */
function pacer(): ((lastTick?: TickTime) => Promise<void>) | undefined {
  if (!process.argv.includes('--paced')) return undefined;
  if (process.send === undefined)
    throw new Error(
      '--paced: run by bench/readerPairs.ts, with an IPC channel'
    );
  let turn: (() => void) | undefined;
  process.on('message', () => turn?.());
  return lastTick =>
    new Promise(resolve => {
      turn = () => {
        turn = undefined;
        process.send!({ event: 'turn', cpuAtTurn: cpuSoFar(), lastTick });
        resolve();
      };
      process.send!({ event: 'ready' });
    });
}

/** A timed tick: its CPU and wall-clock time, and when it started on the performance timeline. */
interface TickTime {
  /** The process's CPU: the main thread's and the collector's helper threads'. */
  cpuMs: number;
  /** The main thread's alone. */
  threadCpuMs: number;
  wallMs: number;
  startMs: number;
}

/** Where a tick's timing starts. */
interface TickStart {
  cpu: NodeJS.CpuUsage;
  thread: NodeJS.CpuUsage;
  wall: number;
}

function startTiming(): TickStart {
  return {
    cpu: process.cpuUsage(),
    thread: process.threadCpuUsage(),
    wall: performance.now(),
  };
}

function cpuAndWall({ cpu, thread, wall }: TickStart): TickTime {
  const wallMs = performance.now() - wall;
  const spent = process.cpuUsage(cpu);
  const threadSpent = process.threadCpuUsage(thread);
  return {
    cpuMs: (spent.user + spent.system) / 1000,
    threadCpuMs: (threadSpent.user + threadSpent.system) / 1000,
    wallMs,
    startMs: wall,
  };
}

/**
 * The measured ticks that a garbage collection's pause overlapped, and the CPU of the others:
 * where the collector's work lands is set by when the young generation fills, which a tick that
 * yields to the event loop (in slices) gives more chances to land in.
 */
function collectionsInTicks(
  ticks: readonly TickTime[],
  pauses: readonly PerformanceEntry[]
): { ticks: number; cpuMsOfTheOthers: ReturnType<typeof summary> } {
  const others = ticks.filter(
    tick =>
      !pauses.some(
        pause =>
          pause.startTime < tick.startMs + tick.wallMs &&
          pause.startTime + pause.duration > tick.startMs
      )
  );
  return {
    ticks: ticks.length - others.length,
    cpuMsOfTheOthers: summary(others.map(tick => tick.cpuMs)),
  };
}

async function main(): Promise<void> {
  const scaleName = argument('scale') ?? 'S';
  if (!isScaleName(scaleName)) throw new Error(`unknown scale ${scaleName}`);
  const scale = SCALES[scaleName];
  const kind = argument('reader') ?? 'legacy';
  const measuredTicks = Number(argument('ticks') ?? 60);
  const histogramMaxBuckets = Number(
    argument('histogram-buckets') ?? DEFAULT_READER_OPTIONS.histogramMaxBuckets
  );

  if (process.argv.includes('--sdk-counts-loop')) countSdkBucketsInALoop();
  const sliceMs = argument('slice-ms');
  const applyFirst = process.argv.includes('--apply-first');
  const byKind = process.argv.includes('--by-kind');
  // Held, never touched: the heap a host keeps of its own, so that a reader is measured in the
  // collector regime of a process that holds that much (see gcPerTick).
  const inertHeap = Array.from(
    { length: Number(argument('inert-objects') ?? 0) },
    (_, i) => ({ at: i, pair: [i, i + 0.5], next: null })
  );

  const clock = { now: 1_700_000_000_000 };
  const readerOptions = {
    hostTypes: hostTypeNames(scale),
    histogramMaxBuckets,
    now: () => clock.now,
    monotonicNow: () => clock.now,
    slotMs: SLOT_MS,
    ...(sliceMs === undefined ? {} : { sliceMs: Number(sliceMs) }),
  };
  const legacy =
    kind === 'legacy' ? new LegacyMetricsReader(readerOptions) : undefined;
  const reader = legacy ?? new BaselineReader(histogramMaxBuckets);
  const provider = new MeterProvider({ readers: [reader] });
  const workload = new Workload(
    provider.getMeter('bench'),
    scale,
    process.argv.includes('--fresh-attributes')
  );
  const store =
    kind === 'store'
      ? new MetricStore(resolveReaderOptions(readerOptions))
      : undefined;

  let kindCosts = new Map<Kind, KindCost>();
  /** One tick: the reader's, or the store's alone after a collection outside the timing. */
  const tick = async (): Promise<TickTime> => {
    if (store === undefined) {
      const start = startTiming();
      await reader.forceFlush();
      return cpuAndWall(start);
    }
    const { resourceMetrics } = await reader.collect();
    await new Promise(resolve => setImmediate(resolve));
    const slot = Math.floor(clock.now / SLOT_MS);
    const start = startTiming();
    const apply = (): void =>
      byKind
        ? applyByKind(store, kindCosts, resourceMetrics, slot, clock.now)
        : store.apply(resourceMetrics, slot, clock.now);
    if (applyFirst) apply();
    store.expire(slot);
    if (!applyFirst) apply();
    store.publish(clock.now, clock.now);
    return cpuAndWall(start);
  };
  const timeTick = async (): Promise<TickTime> => {
    // Yield first, so that no other work lands inside the measurement.
    await new Promise(resolve => setImmediate(resolve));
    return tick();
  };

  // A slot's worth of updates: a longer slot changes more series per tick, in fewer ticks.
  const updatesPerTick = Math.round(
    (workload.updatesPerSecond * SLOT_MS) / 1000
  );
  workload.populate();
  const first = await timeTick();
  // Fill the window, so that each measured tick also expires the slot that leaves it.
  for (let i = 0; i < WINDOW_SLOTS + 10; i++) {
    clock.now += SLOT_MS;
    workload.update(updatesPerTick);
    await tick();
  }
  const cpu: number[] = [];
  const wall: number[] = [];
  let longestSliceCpuMs = 0;
  let longestSliceMs = 0;
  /** The legacy reader's own slices per tick, together: its time on the loop, beyond the SDK's collect. */
  const slicesMs: number[] = [];
  const profile = argument('profile');
  const profiler = profile === undefined ? undefined : await startProfile();
  const gcProfiler = new GCProfiler();
  gcProfiler.start();
  const pauseEntries: PerformanceEntry[] = [];
  const pauses = new PerformanceObserver(list =>
    pauseEntries.push(...list.getEntries())
  );
  pauses.observe({ entryTypes: ['gc'] });
  const measuredTimes: TickTime[] = [];
  kindCosts = new Map();
  const paced = pacer();
  await paced?.();
  const cycleStart = process.cpuUsage();
  const cycleThreadStart = process.threadCpuUsage();
  let updateThreadMs = 0;
  for (let i = 0; i < measuredTicks; i++) {
    clock.now += SLOT_MS;
    const updateStart = process.threadCpuUsage();
    workload.update(updatesPerTick);
    const updated = process.threadCpuUsage(updateStart);
    updateThreadMs += (updated.user + updated.system) / 1000;
    const measured = await timeTick();
    // The last turn closes the last cycle.
    await paced?.(measured);
    measuredTimes.push(measured);
    cpu.push(measured.cpuMs);
    wall.push(measured.wallMs);
    if (legacy !== undefined)
      longestSliceCpuMs = Math.max(
        longestSliceCpuMs,
        legacy.lastTickSlices.longestCpuMs
      );
    if (legacy !== undefined)
      longestSliceMs = Math.max(
        longestSliceMs,
        legacy.lastTickSlices.longestMs
      );
    if (legacy !== undefined) slicesMs.push(legacy.lastTickSlices.totalMs);
  }
  const cycle = process.cpuUsage(cycleStart);
  const cycleThread = process.threadCpuUsage(cycleThreadStart);
  // The collector's entries come to the observer a task later.
  await new Promise(resolve => setTimeout(resolve, 10));
  pauses.disconnect();
  const collections = collectionsInTicks(measuredTimes, pauseEntries);
  const gc = gcPerTick(gcProfiler.stop().statistics, measuredTicks);
  const cycleCpuMs = (cycle.user + cycle.system) / 1000 / measuredTicks;
  if (profiler !== undefined) await profiler.stopInto(profile!);

  if (legacy !== undefined) {
    // Hold what a polled snapshot holds: the bodies of the benchmarked endpoints.
    const { hostType, metric } = sampleOf(scale);
    for (const path of [
      [],
      ['all'],
      ['host_type', hostType],
      ['host_type', hostType, metric],
      ['global'],
    ]) {
      const response = legacy[SERVED_SNAPSHOT]().respond(
        'host_type',
        ['metrics', ...path],
        jsonSerializer
      );
      if (response.status !== 200)
        throw new Error(
          `/metrics/${path.join('/')} answered ${response.status}`
        );
    }
    if (legacy.seriesCount !== workload.seriesCount) {
      throw new Error(
        `the reader holds ${legacy.seriesCount} series, expected ${workload.seriesCount}`
      );
    }
  }
  await collectGarbage();
  const memory = process.memoryUsage();
  emit('result', {
    reader: kind,
    series: workload.seriesCount,
    slotMs: SLOT_MS,
    updatesPerTick,
    firstTick: first,
    tickCpuMs: summary(cpu),
    tickThreadCpuMs: summary(measuredTimes.map(time => time.threadCpuMs)),
    cycleCpuMs,
    cycleThreadCpuMs:
      (cycleThread.user + cycleThread.system) / 1000 / measuredTicks,
    updateThreadCpuMs: updateThreadMs / measuredTicks,
    gc,
    collectionsInTicks: collections,
    tickWallMs: summary(wall),
    longestSliceCpuMs,
    longestSliceMs,
    ...(legacy !== undefined ? { slicesMs: summary(slicesMs) } : {}),
    ...(byKind ? { applyByKind: perPoint(kindCosts, measuredTicks) } : {}),
    heapUsed: memory.heapUsed,
    external: memory.external,
  });
  // Keep everything reachable until the numbers are taken.
  await provider.shutdown();
  inertHeap.length = 0;
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
