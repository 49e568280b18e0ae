import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * `--sdk-counts-loop` (bench only): what the SDK's collect would cost if its exponential
 * histogram listed a point's bucket counts in a plain loop. `Buckets.counts()` builds them with
 * `Array.from({ length }, callback)`, which V8 runs through its generic path, several times
 * slower than a loop for the 160 buckets of a full histogram. This replaces that one method in
 * this process, with the same result, so that a run can show the difference; the library never
 * touches the SDK.
 */
export function countSdkBucketsInALoop(): void {
  const root = dirname(require.resolve('@opentelemetry/sdk-metrics'));
  // The 3.x line's bundle keeps each module in a file of its own, as the 2.x line's build does.
  const file = [
    join(root, 'aggregator/exponential-histogram/Buckets.cjs'),
    join(root, 'aggregator/exponential-histogram/Buckets.js'),
  ].find(candidate => existsSync(candidate));
  if (file === undefined)
    throw new Error(
      `--sdk-counts-loop: no exponential-histogram/Buckets module under ${root}`
    );
  // The SDK's own module instance, the one its histograms are made of.
  const load = createRequire(__filename);
  const { Buckets } = load(file) as {
    Buckets?: { prototype: BucketsLike };
  };
  if (typeof Buckets?.prototype.counts !== 'function')
    throw new Error(`--sdk-counts-loop: ${file} has no Buckets.counts()`);
  Buckets.prototype.counts = function counts(this: BucketsLike): number[] {
    const length = this.length;
    const listed = new Array<number>(length);
    for (let i = 0; i < length; i++) listed[i] = this.at(i);
    return listed;
  };
}

interface BucketsLike {
  readonly length: number;
  at(position: number): number;
  counts(): number[];
}
