import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { LegacyMetricsReader } from '../src';
import { MetricStore } from '../src/reader/MetricStore';
import {
  DEFAULT_READER_OPTIONS,
  resolveReaderOptions,
} from '../src/reader/options';
import { BaselineReader } from './baselineReader';
import { argument } from './ipc';
import { hostTypeNames, isScaleName, SCALES, Workload } from './workload';

/**
 * `npm run bench:allocation [-- --scale L --ticks 30 --first-tick --sliced --top 20]`
 *
 * What the legacy store allocates on the collector's heap, by V8's sampling heap profiler (every
 * 256 bytes, objects the collector has already freed included): in `--ticks` ticks once the
 * window is full (the steady tick), or with `--first-tick` in the first, which makes every
 * series. The store runs alone, fed by the baseline reader's collections, as
 * `readerCost --reader store` does; prints the kilobytes a tick and the sites that allocate most.
 *
 * `--sliced` runs the LegacyMetricsReader itself instead, its ticks in slices as in production,
 * and counts what the package's own code allocates in them (the SDK's collect left out): what
 * V8's marking steps, taken in whatever code allocates, can land in.
 */

/** A node of V8's sampling heap profile. */
interface SampleNode {
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly selfSize: number;
  readonly children: readonly SampleNode[];
}

/** Where a frame is: a native one (a Map's `set`) is named with the frame that called it. */
function siteOf(node: SampleNode, caller: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const site = `${functionName || '(anonymous)'} ${url.split('/').pop() ?? ''}:${lineNumber + 1}`;
  return url === '' ? `${site} < ${caller}` : site;
}

/** The package's own code, as built beside this file. */
const PACKAGE_SOURCE = `${dirname(__dirname)}/src/`;
const SDK_SOURCE = '/node_modules/@opentelemetry/';

/**
 * Adds what `node` and its callees allocate to `bytes`, by site; with `packageOnly`, only what
 * is allocated under a frame of the package's code and none of the SDK's.
 */
function addSites(
  node: SampleNode,
  caller: string,
  bytes: Map<string, number>,
  packageOnly: boolean,
  inPackage = false
): void {
  const url = node.callFrame.url;
  if (packageOnly && url.includes(SDK_SOURCE)) return;
  const counted = !packageOnly || inPackage || url.includes(PACKAGE_SOURCE);
  const site = siteOf(node, caller);
  if (node.selfSize > 0 && counted)
    bytes.set(site, (bytes.get(site) ?? 0) + node.selfSize);
  const named = url === '' ? caller : site;
  for (const child of node.children)
    addSites(child, named, bytes, packageOnly, counted && packageOnly);
}

async function main(): Promise<void> {
  const scaleName = argument('scale') ?? 'L';
  if (!isScaleName(scaleName)) throw new Error(`unknown scale ${scaleName}`);
  const scale = SCALES[scaleName];
  const firstTick = process.argv.includes('--first-tick');
  const measured = firstTick ? 1 : Number(argument('ticks') ?? 30);
  const top = Number(argument('top') ?? 20);

  const clock = { now: 1_700_000_000_000 };
  const slotMs = DEFAULT_READER_OPTIONS.slotMs;
  const options = {
    hostTypes: hostTypeNames(scale),
    now: () => clock.now,
    monotonicNow: () => clock.now,
  };
  const sliced = process.argv.includes('--sliced');
  const legacy = sliced ? new LegacyMetricsReader(options) : undefined;
  const baseline = sliced
    ? undefined
    : new BaselineReader(DEFAULT_READER_OPTIONS.histogramMaxBuckets);
  const provider = new MeterProvider({ readers: [(legacy ?? baseline)!] });
  const workload = new Workload(provider.getMeter('bench'), scale);
  const store = sliced
    ? undefined
    : new MetricStore(resolveReaderOptions(options));
  /** One tick: the reader's own, or the store's alone on a collection made before `sampled`. */
  const tick = async (sampled: () => Promise<void>): Promise<void> => {
    if (legacy !== undefined) {
      await sampled();
      await legacy.forceFlush();
      return;
    }
    const { resourceMetrics } = await baseline!.collect();
    const slot = Math.floor(clock.now / slotMs);
    await sampled();
    store!.apply(resourceMetrics, slot, clock.now);
    store!.expire(slot);
    store!.publish(clock.now, clock.now);
  };
  const session = new Session();
  session.connect();
  const updates = Math.round(workload.updatesPerSecond);
  // The window's slots and ten more before the steady ticks, so that they expire a slot each.
  const before = firstTick ? 0 : 70;
  const bytes = new Map<string, number>();
  const startSampling = async (): Promise<void> => {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  };
  workload.populate();
  for (let ticks = 0; ticks < before + measured; ticks++) {
    clock.now += slotMs;
    if (ticks > 0) workload.update(updates);
    const sampled = ticks >= before;
    await tick(sampled ? startSampling : async () => undefined);
    if (sampled) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      addSites(profile.head as SampleNode, '', bytes, sliced);
    }
  }
  session.disconnect();
  let total = 0;
  for (const size of bytes.values()) total += size;
  const kb = (size: number): string => (size / measured / 1024).toFixed(1);
  console.log(
    `scale ${scale.name}, ${sliced ? "the reader's own code, sliced" : 'the store alone'}, ` +
      `${firstTick ? 'the first tick' : `${measured} steady ticks`}: ` +
      `${kb(total)} KB a tick`
  );
  for (const [site, size] of [...bytes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`${kb(size).padStart(10)}  ${site}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
