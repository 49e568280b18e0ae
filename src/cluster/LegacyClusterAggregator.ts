import cluster, { type Worker } from 'node:cluster';
import { MetricStore } from '../reader/MetricStore';
import { ServedStore } from '../reader/ServedStore';
import { errorText, WARNING_CODES, WarnOnce } from '../warnings';
import { decodeCollection } from './decodeCollection';
import {
  resolveAggregatorOptions,
  type LegacyClusterAggregatorOptions,
  type ResolvedAggregatorOptions,
} from './options';
import {
  CUMULATIVE_MESSAGE_TYPE,
  isClusterMessage,
} from '../reader/clusterWire';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { CumulativeMetrics } from './CumulativeMetrics';
import { SerialSlicedWork } from './SerialSlicedWork';
import { SlotTicker } from '../reader/slotClock';

import { decodeCumulative } from './decodeCumulative';
import { CLUSTER_AGGREGATOR } from '../http/LegacySnapshotSource';

/**
 * The most store jobs (messages, ticks) waiting in the primary: far more than a tick's
 * messages from a large cluster, so that only a primary that cannot keep up drops any.
 */
const MAX_QUEUED_JOBS = 1024;

/** What the primary knows of a worker that reported. */
interface WorkerState {
  readonly pid: number | undefined;
  /** The last slot in which a message of it was applied. */
  readonly lastSlot: number;
  /** Its last values were dropped for silence; a message brings them back. */
  silent: boolean;
}

/**
 * Serves the legacy API for a whole `node:cluster` server from its primary. Each worker's
 * `LegacyMetricsReader` with `cluster: true` sends what it collects every tick; the aggregator
 * feeds it into a store of its own by the reader's rules, and answers what one process would if
 * it had received every worker's recordings: spirals, counters and histogram windows combined,
 * each worker's gauges summed.
 *
 * A worker that exits or is killed keeps everything it sent in `count` and in the windows until
 * it ages out; its gauges are dropped at once. A worker that sends nothing for `silentSlots`
 * slots has its gauges dropped, with a warning naming it. A malformed or oversized message is
 * dropped whole, with one warning per worker.
 *
 * Accepted wherever a reader is: `legacyMetricsApi({ reader })`, `startLegacyMetricsServer`,
 * `startLegacyMetricsListeners`. It listens to the cluster from {@link start} on.
 */
export class LegacyClusterAggregator extends ServedStore {
  /** How the HTTP layer, which does not import this class, recognizes it. */
  readonly [CLUSTER_AGGREGATOR] = true;
  private readonly _options: ResolvedAggregatorOptions;
  private readonly _cumulative: CumulativeMetrics;
  /**
   * A quarter slot after each boundary: the workers tick on the boundary, so their messages are
   * in by then, and land in the slot a single process would have put them in.
   */
  private readonly _ticker: SlotTicker;
  private readonly _work: SerialSlicedWork;
  private readonly _workers = new Map<number, WorkerState>();
  private readonly _warnings = new WarnOnce();
  private readonly _onMessage = (worker: Worker, message: unknown): void =>
    this._receive(worker, message);
  private readonly _onExit = (worker: Worker): void => this._forget(worker);

  /** Validates the options at once (as the reader does) and stores them; starts nothing. */
  constructor(options: LegacyClusterAggregatorOptions = {}) {
    const resolved = resolveAggregatorOptions(options);
    super(new MetricStore(resolved), () => resolved.now());
    this._options = resolved;
    this._cumulative = new CumulativeMetrics(resolved);
    this._work = new SerialSlicedWork(this._store, resolved, MAX_QUEUED_JOBS);
    this._ticker = new SlotTicker(
      async () => this._tick(),
      resolved.slotMs,
      resolved.monotonicNow,
      Math.floor(resolved.slotMs / 4)
    );
  }

  /**
   * Listens to the workers' messages and exits, and publishes a snapshot every slot. Idempotent.
   * @throws Error outside the primary of a `node:cluster` server
   */
  start(): this {
    if (this.status !== 'unregistered') return this;
    if (!cluster.isPrimary)
      throw new Error(
        'LegacyClusterAggregator: start() must run in the node:cluster primary (cluster.isPrimary is false)'
      );
    this.serve();
    cluster.on('message', this._onMessage);
    cluster.on('exit', this._onExit);
    this._ticker.start();
    return this;
  }

  /**
   * The workers' cumulative instruments combined, for a Prometheus serializer: counters and
   * histogram buckets summed over the live workers and those that exited, gauges by the
   * `gauges` rule over the live ones. The same object until a worker's message changes it.
   * @param resource the resource the exposition's `target_info` shows
   */
  collectCumulative(resource: ResourceMetrics['resource']): ResourceMetrics {
    return this._cumulative.collect(resource);
  }

  /** Publishes what was received so far now, without waiting for the slot's end. */
  async forceFlush(): Promise<void> {
    this._tick();
    return this._work.idle();
  }

  /** Stops listening and ticking; the API then answers 503. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.status === 'shutdown') return;
    this.shutDown();
    cluster.off('message', this._onMessage);
    cluster.off('exit', this._onExit);
    await this._ticker.stop();
  }

  /** Queues a publication of what was applied so far. */
  private _tick(): void {
    this._work.run(async slicer => {
      const monotonicMs = await this._work.advance(slicer);
      this._dropSilentWorkers();
      // A defect in a job is reported and survived: the previous snapshot stays served.
      await this.publish(this.now(), monotonicMs, slicer);
    });
  }

  private _receive(worker: Worker, message: unknown): void {
    if (this.status === 'shutdown' || !isClusterMessage(message)) return;
    const body = message.body;
    if (typeof body !== 'string') {
      this._drop(worker, 'its body is not a string');
      return;
    }
    if (Buffer.byteLength(body) > this._options.maxMessageBytes) {
      this._drop(
        worker,
        `it is larger than maxMessageBytes (${this._options.maxMessageBytes})`
      );
      return;
    }
    if (message.type === CUMULATIVE_MESSAGE_TYPE)
      this._receiveCumulative(worker, body);
    else this._receiveCollection(worker, body);
    this._workers.set(worker.id, {
      pid: worker.process.pid,
      lastSlot: this._work.currentSlot(),
      silent: false,
    });
  }

  private _receiveCumulative(worker: Worker, body: string): void {
    const changes = this._decodeOrDrop(worker, body, decodeCumulative);
    if (changes === undefined) return;
    this._cumulative.apply(worker.id, changes, (name, reason) =>
      this._warnings.warn(
        `refused:${worker.id}:${name}`,
        WARNING_CODES.clusterMessageDropped,
        `LegacyClusterAggregator: left instrument ${name} of cluster worker ${worker.id} ` +
          `(pid ${worker.process.pid ?? '?'}) out of the Prometheus exposition: ${reason}`
      )
    );
    // Sent just before it exited: its gauges are gone with it.
    if (worker.isDead()) this._cumulative.silence(worker.id);
  }

  private _receiveCollection(worker: Worker, body: string): void {
    let collection = this._decodeOrDrop(worker, body, decodeCollection);
    if (collection === undefined) return;
    const source = `worker ${worker.id}`;
    const queued = this._work.run(async slicer => {
      const monotonicMs = await this._work.advance(slicer);
      // The decoded message is the job's own: copied, then let go of before it is applied.
      await this._store.captureSliced(collection!, slicer, source);
      collection = undefined;
      await this._store.applyCapturedSliced(
        this._work.slot,
        monotonicMs,
        slicer
      );
      // Sent just before it exited: its increases count, its last values are gone with it.
      if (worker.isDead()) this._store.forgetSource(source);
    });
    if (!queued)
      this._drop(
        worker,
        `the primary is behind: ${MAX_QUEUED_JOBS} messages wait to be applied`
      );
  }

  /** What `decode` reads from a body; undefined when it refuses it, and the message is dropped. */
  private _decodeOrDrop<T>(
    worker: Worker,
    body: string,
    decode: (body: string) => T
  ): T | undefined {
    try {
      return decode(body);
    } catch (error) {
      this._drop(worker, errorText(error));
      return undefined;
    }
  }

  private _drop(worker: Worker, reason: string): void {
    this._warnings.warn(
      `drop:${worker.id}`,
      WARNING_CODES.clusterMessageDropped,
      `LegacyClusterAggregator: dropped a message of cluster worker ${worker.id} ` +
        `(pid ${worker.process.pid ?? '?'}): ${reason}; the other workers' data is served as before ` +
        '(further messages of this worker that are dropped are not reported)'
    );
  }

  private _forget(worker: Worker): void {
    this._workers.delete(worker.id);
    const source = `worker ${worker.id}`;
    this._work.run(() => this._store.forgetSource(source));
    // Its gauges leave now; its totals are carried once its channel is closed, when no message
    // of it can still be on the way (a total carried twice would be counted twice).
    this._cumulative.silence(worker.id);
    if (worker.isConnected())
      worker.once('disconnect', () => this._cumulative.forget(worker.id));
    else this._cumulative.forget(worker.id);
    // "Dropped at once": a snapshot published before the exit must not serve its gauges for a slot.
    this._tick();
  }

  private _dropSilentWorkers(): void {
    const limit = this._options.silentSlots;
    for (const [id, state] of this._workers) {
      if (state.silent || this._work.slot - state.lastSlot <= limit) continue;
      state.silent = true;
      this._store.forgetSource(`worker ${id}`);
      this._cumulative.silence(id);
      this._warnings.warn(
        `silent:${id}:${state.lastSlot}`,
        WARNING_CODES.clusterWorkerSilent,
        `LegacyClusterAggregator: cluster worker ${id} (pid ${state.pid ?? '?'}) sent nothing for ` +
          `${limit} slots (${limit * this._options.slotMs} ms); its gauges are no longer counted ` +
          'until it sends again, and its counters and histograms stay'
      );
    }
  }
}
