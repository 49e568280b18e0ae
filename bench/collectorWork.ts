import type { GCProfilerResult } from 'node:v8';

/**
 * The collector's work in a `GCProfiler` window: its main-thread time and count by kind, and
 * what the scavenges promoted into the old space, which later mark-compacts must sweep.
 */
export interface CollectorWork {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
  promotedMB: number;
}

type HeapAt = GCProfilerResult['statistics'][number]['afterGC'];

function oldSpaceUsed(heap: HeapAt): number {
  return heap.heapSpaceStatistics
    .filter(s => s.spaceName === 'old_space' || s.spaceName === 'lo_space')
    .reduce((sum, s) => sum + s.spaceUsedSize, 0);
}

export function collectorWork(
  statistics: GCProfilerResult['statistics']
): CollectorWork {
  const work = {
    scavenges: 0,
    scavengeMs: 0,
    markCompacts: 0,
    markCompactMs: 0,
    promotedMB: 0,
  };
  for (const gc of statistics) {
    if (gc.gcType === 'Scavenge') {
      work.scavenges++;
      work.scavengeMs += gc.cost / 1000;
      work.promotedMB +=
        (oldSpaceUsed(gc.afterGC) - oldSpaceUsed(gc.beforeGC)) / 1e6;
    } else if (gc.gcType === 'MarkSweepCompact') {
      work.markCompacts++;
      work.markCompactMs += gc.cost / 1000;
    }
  }
  return work;
}
