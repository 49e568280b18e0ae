/**
 * A cluster worker's side: each tick's collection goes to the primary over the IPC channel that
 * `node:cluster` opened, as one message whose body `clusterWire.ts` defines. Every message of
 * the process goes through one bounded outbox, so a primary that reads slower than the workers
 * send costs dropped messages (with a warning), never a queue that grows without bound.
 */
import cluster from 'node:cluster';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { invalidOption } from '../optionValidation';
import type { MeterFilter } from './meterSelection';
import { warnExplicitBuckets } from './metricShape';
import { errorText, WARNING_CODES, WarnOnce } from '../warnings';
import {
  AttributeKeys,
  CLUSTER_MESSAGE_TYPE,
  encodeCollection,
} from './clusterWire';

/**
 * The most messages of this process handed to the IPC channel and not yet written. Two
 * sections a tick: eight is four ticks of backlog, past which a tick's data is dropped.
 */
export const MAX_QUEUED_MESSAGES = 8;

const outboxWarnings = new WarnOnce();
let queued = 0;

function who(): string {
  return `cluster worker ${cluster.worker?.id ?? '?'} (pid ${process.pid})`;
}

/**
 * Sends one message to the primary, never throws. Resolves false when it was not sent (the
 * channel closed, or {@link MAX_QUEUED_MESSAGES} are still queued), with one warning per cause,
 * so that a sender of changes only can send everything again next time.
 * @param what what the message carries, for the warning
 */
export function sendToPrimary(
  message: { type: string; body: string },
  what: string
): Promise<boolean> {
  const failed = (error: unknown): boolean => {
    outboxWarnings.warn(
      'send',
      WARNING_CODES.clusterSendFailed,
      `LegacyMetricsReader: ${who()} could not send its ${what} to the primary (${errorText(error)}); ` +
        'what it collected while the primary cannot receive is lost',
      error
    );
    return false;
  };
  if (!process.connected || process.send === undefined)
    return Promise.resolve(failed(new Error('the IPC channel is closed')));
  if (queued >= MAX_QUEUED_MESSAGES) {
    outboxWarnings.warn(
      'queue',
      WARNING_CODES.clusterQueueFull,
      `LegacyMetricsReader: ${who()} dropped its ${what}: ${MAX_QUEUED_MESSAGES} messages are still ` +
        'queued for the primary, which reads slower than the workers send (further drops are not reported)'
    );
    return Promise.resolve(false);
  }
  queued++;
  return new Promise(done => {
    try {
      process.send!(message, undefined, {}, error => {
        queued--;
        done(error ? failed(error) : true);
      });
    } catch (error) {
      queued--;
      done(failed(error));
    }
  });
}

/** Sends a worker's collections to its primary. */
export class WorkerChannel {
  private readonly _warnings = new WarnOnce();
  private readonly _keys = new AttributeKeys();

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
   * Sends one collection, never throws: a primary gone (the channel closed) or a full outbox
   * costs this tick's data, with one warning.
   */
  send(resourceMetrics: ResourceMetrics): void {
    const { body, refused } = encodeCollection(
      resourceMetrics,
      name => this._meters.serves(name),
      this._keys
    );
    for (const name of refused) warnExplicitBuckets(this._warnings, name);
    void sendToPrimary({ type: CLUSTER_MESSAGE_TYPE, body }, 'metrics');
  }
}
