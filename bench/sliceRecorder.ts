import { readFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { MetricStore } from '../src/reader/MetricStore';
import { Slicer } from '../src/reader/Slicer';

/**
 * Which part of the reader's slices the collector's pauses and the waits for a CPU took, in the
 * bench's process only: every slice's start and length (by wrapping `Slicer.prototype.end` and
 * `pause`, and `MetricStore.prototype.slicer`, which the library never does), every pause the
 * collector reports to Node's performance timeline, and, on Linux, the time the event loop's
 * thread waited in the run queue during the slice (`/proc/thread-self/schedstat`), while the
 * machine's other threads (the load generator's, the collector's helpers) had the CPUs.
 *
 * The collector's pauses are the whole process's: a scavenge that starts inside a slice collects
 * whatever filled the young generation, the host's requests as much as the reader. V8's
 * incremental marking steps, which run inside allocation and are not reported, stay counted as
 * the slice's own. (The thread's CPU time cannot stand in for both: the kernels here count it
 * in 4 ms ticks.)
 */
export interface SliceRecord {
  /**
   * The longest slice less the collector's pauses and the waits for a CPU inside it, in ms: the
   * reader's own longest.
   */
  longestOwnMs: number;
  /** The longest slice by the wall clock, in ms, and the collector's pauses and waits inside it. */
  longestMs: number;
  collectorInLongestMs: number;
  waitInLongestMs: number;
  /**
   * The longest of those outside the collector's incremental marking and during it (from Node's
   * `incremental` entry, when V8 starts marking, to the end of the mark-compact that finishes
   * it), when V8 may take a marking step inside any allocation, and how many slices fell in it.
   */
  longestOwnOutsideMarkingMs: number;
  longestOwnInMarkingMs: number;
  slicesInMarking: number;
  /** Slices in the window, and how many of them a collector's pause overlapped. */
  slices: number;
  slicesWithCollector: number;
}

interface Interval {
  start: number;
  ms: number;
}

interface SliceInterval extends Interval {
  waitMs: number;
}

/**
 * How long the calling thread has waited in the run queue, in ms (0 where the kernel does not
 * tell: the slices are then taken whole).
 */
function waitedMs(): number {
  try {
    const fields = readFileSync('/proc/thread-self/schedstat', 'utf8');
    return Number(fields.split(' ')[1]) / 1e6 || 0;
  } catch {
    return 0;
  }
}

/** Starts recording; `window()` restarts the window, `summary()` reads it. */
export function recordSlices(): {
  window(): void;
  summary(): SliceRecord;
} {
  let slices: SliceInterval[] = [];
  let pauses: Interval[] = [];
  // Kept across windows: a marking may start before one.
  const markings: Interval[] = [];
  let markingSince: number | undefined;
  type SlicerInside = {
    _sliceStart: number;
    end(): void;
    pause(): Promise<void>;
  };
  // The wait so far when each slicer's slice under way began.
  const waitAtStart = new WeakMap<object, number>();
  const prototype = Slicer.prototype as unknown as SlicerInside;
  const end = prototype.end;
  prototype.end = function (this: SlicerInside) {
    const start = this._sliceStart;
    const ms = performance.now() - start;
    const waitMs = waitedMs() - (waitAtStart.get(this) ?? Infinity);
    slices.push({ start, ms, waitMs: Math.max(0, waitMs) || 0 });
    end.call(this);
  };
  const pauseSlice = prototype.pause;
  prototype.pause = async function (this: SlicerInside) {
    await pauseSlice.call(this);
    waitAtStart.set(this, waitedMs());
  };
  const store = MetricStore.prototype;
  const slicer = store.slicer;
  store.slicer = function (this: MetricStore) {
    const made = slicer.call(this);
    waitAtStart.set(made, waitedMs());
    return made;
  };
  const observer = new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
      pauses.push({ start: entry.startTime, ms: entry.duration });
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL)
        markingSince ??= entry.startTime;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        const start = markingSince ?? entry.startTime;
        markings.push({
          start,
          ms: entry.startTime + entry.duration - start,
        });
        markingSince = undefined;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    window() {
      slices = [];
      pauses = [];
    },
    summary() {
      // Both lists are in time order; each slice meets the pauses from where the last one ended.
      const record: SliceRecord = {
        longestOwnMs: 0,
        longestMs: 0,
        collectorInLongestMs: 0,
        waitInLongestMs: 0,
        longestOwnOutsideMarkingMs: 0,
        longestOwnInMarkingMs: 0,
        slicesInMarking: 0,
        slices: slices.length,
        slicesWithCollector: 0,
      };
      const inMarking = (slice: Interval): boolean =>
        (markingSince !== undefined && slice.start + slice.ms > markingSince) ||
        markings.some(
          marking =>
            slice.start < marking.start + marking.ms &&
            slice.start + slice.ms > marking.start
        );
      let first = 0;
      for (const slice of slices) {
        const sliceEnd = slice.start + slice.ms;
        while (
          first < pauses.length &&
          pauses[first]!.start + pauses[first]!.ms <= slice.start
        )
          first++;
        let collectorMs = 0;
        for (let i = first; i < pauses.length; i++) {
          const pause = pauses[i]!;
          if (pause.start >= sliceEnd) break;
          collectorMs +=
            Math.min(sliceEnd, pause.start + pause.ms) -
            Math.max(slice.start, pause.start);
        }
        if (collectorMs > 0) record.slicesWithCollector++;
        // A pause in which the thread also waited would be taken off twice: never below 0.
        const ownMs = Math.max(0, slice.ms - collectorMs - slice.waitMs);
        record.longestOwnMs = Math.max(record.longestOwnMs, ownMs);
        if (inMarking(slice)) {
          record.slicesInMarking++;
          record.longestOwnInMarkingMs = Math.max(
            record.longestOwnInMarkingMs,
            ownMs
          );
        } else
          record.longestOwnOutsideMarkingMs = Math.max(
            record.longestOwnOutsideMarkingMs,
            ownMs
          );
        if (slice.ms > record.longestMs) {
          record.longestMs = slice.ms;
          record.collectorInLongestMs = collectorMs;
          record.waitInLongestMs = slice.waitMs;
        }
      }
      return record;
    },
  };
}
