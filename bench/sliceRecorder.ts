import { PerformanceObserver } from 'node:perf_hooks';
import { Slicer } from '../src/reader/Slicer';

/**
 * Which part of the reader's slices the collector's pauses took, in the bench's process only:
 * every slice's start and length (by wrapping `Slicer.prototype.end`, which the library never
 * does) and every pause the collector reports to Node's performance timeline. The collector's
 * pauses are the whole process's: a scavenge that starts inside a slice collects whatever filled
 * the young generation, the host's requests as much as the reader. V8's incremental marking
 * steps, which run inside allocation and are not reported, stay counted as the slice's own.
 */
export interface SliceRecord {
  /** The longest slice less the collector's pauses inside it, in ms: the reader's own longest. */
  longestOwnMs: number;
  /** The longest slice by the wall clock, in ms, and the collector's pauses inside it. */
  longestMs: number;
  collectorInLongestMs: number;
  /** Slices in the window, and how many of them a collector's pause overlapped. */
  slices: number;
  slicesWithCollector: number;
}

interface Interval {
  start: number;
  ms: number;
}

/** Starts recording; `window()` restarts the window, `summary()` reads it. */
export function recordSlices(): {
  window(): void;
  summary(): SliceRecord;
} {
  let slices: Interval[] = [];
  let pauses: Interval[] = [];
  type SlicerInside = { _sliceStart: number; end(): void };
  const prototype = Slicer.prototype as unknown as SlicerInside;
  const end = prototype.end;
  prototype.end = function (this: SlicerInside) {
    const start = this._sliceStart;
    slices.push({ start, ms: performance.now() - start });
    end.call(this);
  };
  const observer = new PerformanceObserver(list => {
    for (const entry of list.getEntries())
      pauses.push({ start: entry.startTime, ms: entry.duration });
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
        slices: slices.length,
        slicesWithCollector: 0,
      };
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
        record.longestOwnMs = Math.max(
          record.longestOwnMs,
          slice.ms - collectorMs
        );
        if (slice.ms > record.longestMs) {
          record.longestMs = slice.ms;
          record.collectorInLongestMs = collectorMs;
        }
      }
      return record;
    },
  };
}
