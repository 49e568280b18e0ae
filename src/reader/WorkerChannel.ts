/**
 * A cluster worker's side: each tick's collection goes to the primary over the IPC channel that
 * `node:cluster` opened, as one message whose body `wire.ts` defines.
 */
import cluster from 'node:cluster';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { invalidOption } from '../optionValidation';
import type { MeterFilter } from './meterSelection';
import { WARNING_CODES, WarnOnce } from '../warnings';
import { CLUSTER_MESSAGE_TYPE, encodeCollection } from './clusterWire';

/** Sends a worker's collections to its primary. */
export class WorkerChannel {
  private readonly _warnings = new WarnOnce();

  /**
   * Throws at once when `cluster: true` is given where no primary can receive: a process that
   * is not a `node:cluster` worker, or that has no IPC channel.
   * @param path where the option sits, for the message (`cluster`, `legacy.cluster`)
   */
  static check(path: string): void {
    if (cluster.isWorker && typeof process.send === 'function') return;
    invalidOption(
      path,
      true,
      'false outside a node:cluster worker (this process has no IPC channel to a cluster primary): ' +
        'give cluster: true to the readers of the workers that cluster.fork() starts, ' +
        'and serve them from a LegacyClusterAggregator in the primary'
    );
  }

  constructor(private readonly _meters: MeterFilter) {}

  /**
   * Sends one collection, never throws: a primary gone (the channel closed) costs this tick's
   * data, with one warning.
   */
  send(resourceMetrics: ResourceMetrics): void {
    const { body, refused } = encodeCollection(resourceMetrics, name =>
      this._meters.serves(name)
    );
    for (const name of refused) {
      this._warnings.warn(
        `explicit:${name}`,
        WARNING_CODES.explicitBuckets,
        `LegacyMetricsReader: instrument ${name} is aggregated as an explicit-bucket histogram (a View chose it); ` +
          'it is left out of the legacy API, which needs exponential histograms for its percentiles'
      );
    }
    const failed = (error: unknown): void =>
      this._warnings.warn(
        'send',
        WARNING_CODES.clusterSendFailed,
        `LegacyMetricsReader: cluster worker ${cluster.worker?.id ?? '?'} (pid ${process.pid}) ` +
          `could not send its metrics to the primary (${error instanceof Error ? error.message : String(error)}); ` +
          'what it collected while the primary cannot receive is lost',
        error
      );
    if (!process.connected || process.send === undefined) {
      failed(new Error('the IPC channel is closed'));
      return;
    }
    try {
      process.send(
        { type: CLUSTER_MESSAGE_TYPE, body },
        undefined,
        {},
        error => {
          if (error) failed(error);
        }
      );
    } catch (error) {
      failed(error);
    }
  }
}
