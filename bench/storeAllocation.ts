import { Session } from 'node:inspector/promises';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { MetricStore } from '../src/reader/MetricStore';
import {
  DEFAULT_READER_OPTIONS,
  resolveReaderOptions,
} from '../src/reader/options';
import { BaselineReader } from './baselineReader';
import { argument } from './ipc';
import { hostTypeNames, isScaleName, SCALES, Workload } from './workload';

/**
 * `npm run bench:allocation [-- --scale L --ticks 30 --first-tick --top 20]`
 *
 * What the legacy store allocates on the collector's heap, by V8's sampling heap profiler (every
 * 256 bytes, objects the collector has already freed included): in `--ticks` ticks once the
 * window is full (the steady tick), or with `--first-tick` in the first, which makes every
 * series. The store runs alone, fed by the baseline reader's collections, as
 * `readerCost --reader store` does; prints the kilobytes a tick and the sites that allocate most.
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

function addSites(
  node: SampleNode,
  caller: string,
  bytes: Map<string, number>
): void {
  const site = siteOf(node, caller);
  if (node.selfSize > 0)
    bytes.set(site, (bytes.get(site) ?? 0) + node.selfSize);
  const named = node.callFrame.url === '' ? caller : site;
  for (const child of node.children) addSites(child, named, bytes);
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
  const reader = new BaselineReader(DEFAULT_READER_OPTIONS.histogramMaxBuckets);
  const provider = new MeterProvider({ readers: [reader] });
  const workload = new Workload(provider.getMeter('bench'), scale);
  const store = new MetricStore(
    resolveReaderOptions({
      hostTypes: hostTypeNames(scale),
      now: () => clock.now,
      monotonicNow: () => clock.now,
    })
  );
  const session = new Session();
  session.connect();
  const updates = Math.round(workload.updatesPerSecond);
  // The window's slots and ten more before the steady ticks, so that they expire a slot each.
  const before = firstTick ? 0 : 70;
  const bytes = new Map<string, number>();
  workload.populate();
  for (let tick = 0; tick < before + measured; tick++) {
    clock.now += slotMs;
    if (tick > 0) workload.update(updates);
    const { resourceMetrics } = await reader.collect();
    const slot = Math.floor(clock.now / slotMs);
    const sampled = tick >= before;
    if (sampled)
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    store.apply(resourceMetrics, slot, clock.now);
    store.expire(slot);
    store.publish(clock.now, clock.now);
    if (sampled) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      addSites(profile.head as SampleNode, '', bytes);
    }
  }
  session.disconnect();
  let total = 0;
  for (const size of bytes.values()) total += size;
  const kb = (size: number): string => (size / measured / 1024).toFixed(1);
  console.log(
    `scale ${scale.name}, ${firstTick ? 'the first tick' : `${measured} steady ticks`}: ` +
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
