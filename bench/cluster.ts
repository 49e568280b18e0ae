/**
 * The cluster case: a `node:cluster` server of 4 workers at 1,000 host types × 100 metrics
 * (scale L), each updating 10% of its series every second, served by its primary. Measures the
 * primary's legacy endpoint against a static route of the same size served by the primary (the
 * ratio, target ≥ 0.8), and, with no request load, the primary's CPU and IPC bytes per tick and
 * the event-loop delay of the primary and of the workers.
 *
 *   npm run bench:cluster [-- --seconds 3 --rounds 8 --scale L]
 *
 * `npm run bench` runs it last (see run.ts). This file is the bench (no role), the cluster's
 * primary (BENCH_ROLE=primary) and its workers.
 */
import { fork } from 'node:child_process';
import cluster from 'node:cluster';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import {
  createClusterPrimaryWithLegacyApi,
  createClusterPrometheusReader,
  LegacyMetricsReader,
} from '../src';
import { ChildChannel, emit, serveCommands } from './ipc';
import { checkWrk, runWrk, type LoadResult } from './wrk';
import {
  hostTypeNames,
  isScaleName,
  sampleOf,
  SCALES,
  UpdateSchedule,
  Workload,
  type ScaleName,
} from './workload';

export const CLUSTER_WORKERS = 4;
const SLOT_MS = 1_000;
/** A worker's answer to the primary's request for its event-loop delay. */
const DELAY_REPORT = 'bench-loop-delay';

function log(line: string): void {
  process.stderr.write(`[cluster] ${line}\n`);
}

/** The scale the primary and its workers run at (the bench passes it down). */
function roleScale(): (typeof SCALES)[ScaleName] {
  const name = process.env['BENCH_SCALE'] ?? 'L';
  return isScaleName(name) ? SCALES[name] : SCALES.L;
}

/** p50, p99 and max of a loop-delay histogram, in ms. */
interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

function delayOf(
  histogram: ReturnType<typeof monitorEventLoopDelay>
): LoopDelay {
  return {
    p50: histogram.percentile(50) / 1e6,
    p99: histogram.percentile(99) / 1e6,
    max: histogram.max / 1e6,
  };
}

/** A worker: the scale's workload, both readers sending to the primary; reports its loop delay on request. */
function runWorker(): void {
  const scale = roleScale();
  const provider = new MeterProvider({
    readers: [
      new LegacyMetricsReader({ cluster: true, slotMs: SLOT_MS }),
      createClusterPrometheusReader({ intervalMs: SLOT_MS }),
    ],
  });
  const workload = new Workload(provider.getMeter('bench'), scale);
  workload.populate();
  const schedule = new UpdateSchedule(workload, 10);
  setInterval(() => schedule.next(), 100);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  process.on('message', (message: { cmd?: string }) => {
    if (message?.cmd === 'delay-reset') delay.reset();
    if (message?.cmd === 'delay-report')
      process.send!({ [DELAY_REPORT]: delayOf(delay) });
  });
}

/** Asks every worker for its loop delay since the last reset; resolves with the worst of each figure. */
function workersDelay(): Promise<LoopDelay> {
  const workers = Object.values(cluster.workers ?? {}).filter(w => w);
  return new Promise(resolve => {
    const reports: LoopDelay[] = [];
    const onMessage = (_worker: unknown, message: unknown): void => {
      const report = (message as Record<string, LoopDelay> | null)?.[
        DELAY_REPORT
      ];
      if (report === undefined) return;
      reports.push(report);
      if (reports.length < workers.length) return;
      cluster.off('message', onMessage);
      resolve({
        p50: Math.max(...reports.map(r => r.p50)),
        p99: Math.max(...reports.map(r => r.p99)),
        max: Math.max(...reports.map(r => r.max)),
      });
    };
    cluster.on('message', onMessage);
    for (const worker of workers) worker!.send({ cmd: 'delay-report' });
  });
}

/** The primary: the legacy API, Prometheus, a static route of the same size; counts IPC bytes and CPU. */
async function runPrimary(): Promise<void> {
  const scale = roleScale();
  const primary = await createClusterPrimaryWithLegacyApi({
    legacy: { hostTypes: hostTypeNames(scale), slotMs: SLOT_MS },
    server: { port: 0 },
    prometheus: { port: 0 },
  });
  let ipcBytes = 0;
  let ipcMessages = 0;
  cluster.on('message', (_worker, message: { body?: unknown }) => {
    if (typeof message?.body === 'string') {
      ipcBytes += Buffer.byteLength(message.body);
      ipcMessages++;
    }
  });
  for (let i = 0; i < CLUSTER_WORKERS; i++) cluster.fork();
  const statics = Fastify();
  let staticBody = Buffer.alloc(0);
  statics.get('/static', (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(staticBody);
  });
  const staticUrl = await statics.listen({ host: '127.0.0.1', port: 0 });
  const legacyUrl = 'url' in primary.legacy ? primary.legacy.url : '';
  // The bench gone or stopping it: so is the cluster (an exit, so that `--cpu-prof` writes).
  const stop = (): void => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  serveCommands({
    urls: () => ({ legacy: legacyUrl, static: `${staticUrl}/static` }),
    /** Copies the body of `path` into the static route. */
    freeze: async ({ path }) => {
      const response = await fetch(`${legacyUrl}${String(path)}`);
      staticBody = Buffer.from(await response.arrayBuffer());
      return staticBody.length;
    },
    /** The primary's CPU, IPC and loop delay, and the workers' loop delay, over `ms` of no request load. */
    idle: async ({ ms }): Promise<IdleFigures> => {
      for (const worker of Object.values(cluster.workers ?? {}))
        worker?.send({ cmd: 'delay-reset' });
      delay.reset();
      const bytes = ipcBytes;
      const messages = ipcMessages;
      const cpu = process.cpuUsage();
      await new Promise(done => setTimeout(done, Number(ms)));
      const used = process.cpuUsage(cpu);
      const primaryDelay = delayOf(delay);
      const ticks = Number(ms) / SLOT_MS;
      return {
        cpuMsPerTick: (used.user + used.system) / 1000 / ticks,
        ipcBytesPerTick: (ipcBytes - bytes) / ticks,
        messagesPerTick: (ipcMessages - messages) / ticks,
        series: primary.aggregator.seriesCount,
        primaryDelay,
        workersDelay: await workersDelay(),
      };
    },
  });
  emit('ready');
}

export interface ClusterOptions {
  scale: ScaleName;
  seconds: number;
  rounds: number;
  connections: number;
}

/** What the primary measures with no request load. */
interface IdleFigures {
  cpuMsPerTick: number;
  ipcBytesPerTick: number;
  messagesPerTick: number;
  series: number;
  primaryDelay: LoopDelay;
  workersDelay: LoopDelay;
}

export interface ClusterResult extends IdleFigures {
  options: ClusterOptions;
  machine: string;
  loadAverage: number;
  bodyBytes: number;
  legacy: number;
  ceiling: number;
}

/** Runs the cluster case in a child primary and its workers; resolves with its figures. */
export async function benchCluster(
  options: ClusterOptions
): Promise<ClusterResult> {
  const missing = checkWrk();
  if (missing !== undefined) throw new Error(missing);
  const scale = SCALES[options.scale];
  const child = fork(__filename, [], {
    env: { ...process.env, BENCH_ROLE: 'primary', BENCH_SCALE: options.scale },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const primary = new ChildChannel(child);
  try {
    await primary.nextEvent('ready', 60_000);
    const urls = await primary.call<{ legacy: string; static: string }>('urls');
    const { hostType } = sampleOf(scale);
    const path = `/api/metrics/host_type/${hostType}`;
    log(
      `waiting for ${CLUSTER_WORKERS} workers to populate ${scale.hostTypes * scale.metrics} series each`
    );
    for (;;) {
      const response = await fetch(`${urls.legacy}${path}`);
      const body = (await response.json()) as {
        metrics?: Record<string, unknown>;
      };
      if (Object.keys(body.metrics ?? {}).length >= scale.metrics) break;
      await new Promise(done => setTimeout(done, 1_000));
    }
    // The workers' first, whole messages applied: the steady state is what is measured.
    await new Promise(done => setTimeout(done, 3_000));
    log('10 s with no request load: CPU, IPC and loop delay');
    const idle = await primary.call<IdleFigures>('idle', { ms: 10_000 });
    const bodyBytes = await primary.call<number>('freeze', { path });
    const cases = [
      { url: `${urls.legacy}${path}`, runs: [] as LoadResult[] },
      { url: urls.static, runs: [] as LoadResult[] },
    ];
    const { connections, seconds, rounds } = options;
    for (const { url } of cases) await runWrk({ url, connections, seconds: 2 });
    // Short rounds, alternating: both cases meet the workers' ticks alike.
    for (let round = 0; round < rounds; round++)
      for (const [i, c] of cases.entries()) {
        const run = await runWrk({ url: c.url, connections, seconds });
        c.runs.push(run);
        log(
          `round ${round + 1}: ${i === 0 ? 'legacy' : 'static'} ${run.requestsPerSecond.toFixed(0)} req/s`
        );
      }
    const rate = (runs: LoadResult[]): number =>
      runs.reduce((a, r) => a + r.requests, 0) /
      runs.reduce((a, r) => a + r.seconds, 0);
    return {
      options,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
      loadAverage: loadavg()[0]!,
      bodyBytes,
      legacy: rate(cases[0]!.runs),
      ceiling: rate(cases[1]!.runs),
      ...idle,
    };
  } finally {
    child.kill('SIGTERM');
  }
}

const ms = (value: number): string => value.toFixed(1);

/** The case's table, as BENCHMARKS.md shows it. */
export function clusterTable(r: ClusterResult): string {
  const scale = SCALES[r.options.scale];
  return [
    `Cluster (${r.machine}, load average ${r.loadAverage.toFixed(1)} at the end): ${CLUSTER_WORKERS} workers at ` +
      `${scale.hostTypes} host types × ${scale.metrics} metrics, 10% of series updated per second; ` +
      `wrk: 1 thread, ${r.options.connections} connections, ${r.options.rounds} rounds of ${r.options.seconds} s per case, alternating.`,
    '',
    '| Measure | Value |',
    '| --- | --- |',
    `| legacy \`/host_type/X\` from the primary (${r.bodyBytes} B) | ${r.legacy.toFixed(0)} req/s |`,
    `| static route, same body, same primary | ${r.ceiling.toFixed(0)} req/s |`,
    `| ratio (target ≥ 0.8) | ${(r.legacy / r.ceiling).toFixed(2)} |`,
    `| primary CPU per tick (no request load) | ${ms(r.cpuMsPerTick)} ms |`,
    `| IPC bytes per tick, all workers | ${(r.ipcBytesPerTick / 1024).toFixed(0)} KiB in ${r.messagesPerTick.toFixed(1)} messages |`,
    `| primary's event-loop delay p50 / p99 / max (no request load) | ${ms(r.primaryDelay.p50)} / ${ms(r.primaryDelay.p99)} / ${ms(r.primaryDelay.max)} ms |`,
    `| workers' event-loop delay p50 / p99 / max (worst worker) | ${ms(r.workersDelay.p50)} / ${ms(r.workersDelay.p99)} / ${ms(r.workersDelay.max)} ms |`,
    `| series in the primary | ${r.series} |`,
  ].join('\n');
}

/** The case's line in the bench's list of targets. */
export function clusterTarget(r: ClusterResult): string {
  const ratio = r.legacy / r.ceiling;
  return `${ratio >= 0.8 ? 'met   ' : 'MISSED'}  cluster ${r.options.scale}: the primary's /host_type/<one> ${ratio.toFixed(2)}× the same-size static route (target ≥ 0.8)`;
}

function option(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scale = option(args, 'scale') ?? 'L';
  if (!isScaleName(scale))
    throw new Error(
      `--scale must be one of ${Object.keys(SCALES).join(', ')} (got ${scale})`
    );
  const result = await benchCluster({
    scale,
    seconds: Number(option(args, 'seconds') ?? 3),
    rounds: Number(option(args, 'rounds') ?? 8),
    connections: 16,
  });
  process.stdout.write(`${clusterTable(result)}\n\n${clusterTarget(result)}\n`);
}

if (cluster.isWorker) runWorker();
else if (process.env['BENCH_ROLE'] === 'primary') void runPrimary();
else if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
