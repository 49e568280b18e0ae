/**
 * `legacy-metrics-api demo --workers N`: the simulated messaging server as a `node:cluster`
 * server. The primary opens the configuration file's listeners and the Prometheus endpoint of
 * the whole server; N workers make the traffic and send it to the primary. A worker that dies
 * is replaced, as a real server's supervisor would.
 */
import cluster, { type Worker } from 'node:cluster';
import { join } from 'node:path';
import type { LegacyApiConfig } from '../config/types';
import type { RunningLegacyListener } from '../http/startLegacyMetricsListeners';
import type { PrometheusEndpointOptions } from '../provider/options';
import { createClusterPrimaryWithLegacyApi } from '../cluster/createClusterPrimaryWithLegacyApi';
import { DEMO_HOST_TYPES } from './simulatedMessagingServer';

/** How long a worker must have run to be replaced when it dies: a worker that cannot start is not forked in a loop. */
const REPLACE_AFTER_MS = 1_000;
/** How long `stop()` waits for the workers to send their last data and exit. */
const WORKER_EXIT_MS = 5_000;

/** A running demo, in one process or as a cluster's primary. */
export interface RunningDemo {
  /** Every handler group serving the legacy API, as bound. */
  readonly listeners: readonly RunningLegacyListener[];
  /** The Prometheus exposition's URL; undefined without the exporter. */
  readonly prometheusUrl: string | undefined;
  /**
   * Stops the traffic (a cluster's workers send their last data), closes the listeners, letting
   * requests in flight finish for at most the demo's grace time, and shuts the provider down,
   * flushing OTLP. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Starts the primary and forks `workers` workers.
 * @param graceMs how long `stop()` lets requests in flight finish
 * @throws ListenError when a listener or Prometheus cannot bind; nothing is left running
 */
export async function startClusterDemo(
  config: LegacyApiConfig,
  prometheus: Pick<PrometheusEndpointOptions, 'address' | 'port'> | false,
  workers: number,
  out: (line: string) => void,
  graceMs: number
): Promise<RunningDemo> {
  const primary = await createClusterPrimaryWithLegacyApi({
    // Each worker's uptime is its own: the server's is the longest, not their sum.
    legacy: { hostTypes: DEMO_HOST_TYPES, gauges: { nodeUpTime: 'max' } },
    config,
    listeners: { file: config.file },
    prometheus,
  });
  if (!('listeners' in primary.legacy))
    throw new Error(
      'startClusterDemo: expected the listeners of a configuration'
    );
  cluster.setupPrimary({
    exec: join(__dirname, 'clusterDemoWorker.js'),
    args: [],
  });
  let stopping = false;
  const started = new Map<number, number>();
  const fork = (): Worker => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
    return worker;
  };
  const onExit = (
    worker: Worker,
    code: number | null,
    signal: string | null
  ): void => {
    const ranMs = Date.now() - (started.get(worker.id) ?? Date.now());
    started.delete(worker.id);
    if (stopping) return;
    const how = signal === null ? `code ${code}` : signal;
    if (ranMs < REPLACE_AFTER_MS) {
      out(
        `worker ${worker.id} exited (${how}) after ${ranMs} ms; not replaced`
      );
      return;
    }
    out(
      `worker ${worker.id} exited (${how}); what it counted stays counted; forking a new one`
    );
    fork();
  };
  cluster.on('exit', onExit);
  for (let i = 0; i < workers; i++) fork();
  out(
    `cluster:            ${workers} workers, served by the primary (pid ${process.pid})`
  );
  let stopped: Promise<void> | undefined;
  return {
    listeners: primary.legacy.listeners,
    prometheusUrl: primary.prometheusUrl,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        const alive = Object.values(cluster.workers ?? {}).filter(
          (worker): worker is Worker => worker !== undefined
        );
        await Promise.all(alive.map(worker => stopWorker(worker)));
        cluster.off('exit', onExit);
        await primary.legacy.close({ graceMs });
        await primary.shutdown();
      })()),
  };
}

/** SIGTERM, then SIGKILL if it has not exited within {@link WORKER_EXIT_MS}. */
function stopWorker(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise(done => {
    const timer = setTimeout(
      () => worker.process.kill('SIGKILL'),
      WORKER_EXIT_MS
    );
    worker.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    worker.process.kill('SIGTERM');
  });
}
