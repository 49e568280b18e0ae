/**
 * The cluster case: a `node:cluster` server of 4 workers at 1,000 host types × 100 metrics
 * (scale L), each updating 10% of its series every second, served by its primary. Measures the
 * primary's legacy endpoints against a static route of the same size served by the primary (the
 * ratio, target ≥ 0.8), and the primary's CPU and IPC bytes per tick with no request load.
 *
 *   npm run bench:cluster [-- --seconds 10 --rounds 2 --scale L]
 *
 * This file is the bench (no role), the cluster's primary (BENCH_ROLE=primary) and its workers.
 */
import { fork } from 'node:child_process';
import cluster from 'node:cluster';
import { cpus } from 'node:os';
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
  sampleOf,
  SCALES,
  UpdateSchedule,
  Workload,
} from './workload';

/** Scale L unless BENCH_SCALE names another (`--scale M` for a quick check of the bench itself). */
const SCALE =
  SCALES[(process.env['BENCH_SCALE'] as keyof typeof SCALES) ?? 'L'] ??
  SCALES.L;
const WORKERS = 4;
const SLOT_MS = 1_000;
const CONNECTIONS = 16;

function log(line: string): void {
  process.stderr.write(`[cluster] ${line}\n`);
}

/** A worker: the scale's workload, both readers sending to the primary. */
function runWorker(): void {
  const provider = new MeterProvider({
    readers: [
      new LegacyMetricsReader({ cluster: true, slotMs: SLOT_MS }),
      createClusterPrometheusReader({ intervalMs: SLOT_MS }),
    ],
  });
  const workload = new Workload(provider.getMeter('bench'), SCALE);
  workload.populate();
  const schedule = new UpdateSchedule(workload, 10);
  setInterval(() => schedule.next(), 100);
}

/** The primary: the legacy API, Prometheus, a static route of the same size; counts IPC bytes and CPU. */
async function runPrimary(): Promise<void> {
  const primary = await createClusterPrimaryWithLegacyApi({
    legacy: { hostTypes: hostTypeNames(SCALE), slotMs: SLOT_MS },
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
  for (let i = 0; i < WORKERS; i++) cluster.fork();
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
  serveCommands({
    urls: () => ({ legacy: legacyUrl, static: `${staticUrl}/static` }),
    /** Copies the body of `path` into the static route. */
    freeze: async ({ path }) => {
      const response = await fetch(`${legacyUrl}${String(path)}`);
      staticBody = Buffer.from(await response.arrayBuffer());
      return staticBody.length;
    },
    /** The primary's CPU and IPC over `ms` of no request load, per tick. */
    idle: async ({ ms }) => {
      const bytes = ipcBytes;
      const messages = ipcMessages;
      const cpu = process.cpuUsage();
      await new Promise(done => setTimeout(done, Number(ms)));
      const used = process.cpuUsage(cpu);
      const ticks = Number(ms) / SLOT_MS;
      return {
        cpuMsPerTick: (used.user + used.system) / 1000 / ticks,
        ipcBytesPerTick: (ipcBytes - bytes) / ticks,
        messagesPerTick: (ipcMessages - messages) / ticks,
        series: primary.aggregator.seriesCount,
      };
    },
  });
  emit('ready');
}

async function runBench(): Promise<void> {
  const missing = checkWrk();
  if (missing !== undefined) throw new Error(missing);
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number): number => {
    const at = args.indexOf(`--${name}`);
    return at === -1 ? fallback : Number(args[at + 1]);
  };
  const seconds = option('seconds', 10);
  const rounds = option('rounds', 2);
  const at = args.indexOf('--scale');
  const scale = at === -1 ? SCALE.name : args[at + 1]!;
  if (!Object.hasOwn(SCALES, scale))
    throw new Error(
      `--scale must be one of ${Object.keys(SCALES).join(', ')} (got ${scale})`
    );
  const used = SCALES[scale as keyof typeof SCALES];
  const child = fork(__filename, [], {
    env: { ...process.env, BENCH_ROLE: 'primary', BENCH_SCALE: scale },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const primary = new ChildChannel(child);
  try {
    await primary.nextEvent('ready', 60_000);
    const urls = (await primary.call('urls')) as {
      legacy: string;
      static: string;
    };
    const { hostType } = sampleOf(used);
    const path = `/api/metrics/host_type/${hostType}`;
    log(
      `waiting for ${WORKERS} workers to populate ${used.hostTypes * used.metrics} series each`
    );
    for (;;) {
      const response = await fetch(`${urls.legacy}${path}`);
      const body = (await response.json()) as {
        metrics?: Record<string, unknown>;
      };
      if (Object.keys(body.metrics ?? {}).length >= used.metrics) break;
      await new Promise(done => setTimeout(done, 1_000));
    }
    const idle = (await primary.call('idle', { ms: 10_000 })) as {
      cpuMsPerTick: number;
      ipcBytesPerTick: number;
      messagesPerTick: number;
      series: number;
    };
    const bytes = (await primary.call('freeze', { path })) as number;
    const cases = [
      {
        name: 'legacy /host_type/X',
        url: `${urls.legacy}${path}`,
        runs: [] as LoadResult[],
      },
      {
        name: 'static route, same body',
        url: urls.static,
        runs: [] as LoadResult[],
      },
    ];
    for (const { url } of cases)
      await runWrk({ url, connections: CONNECTIONS, seconds: 2 });
    for (let round = 0; round < rounds; round++)
      for (const c of cases) {
        log(`round ${round + 1}: ${c.name}`);
        c.runs.push(
          await runWrk({ url: c.url, connections: CONNECTIONS, seconds })
        );
      }
    const rate = (runs: LoadResult[]): number =>
      runs.reduce((a, r) => a + r.requests, 0) /
      runs.reduce((a, r) => a + r.seconds, 0);
    const legacy = rate(cases[0]!.runs);
    const ceiling = rate(cases[1]!.runs);
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
    process.stdout.write(
      [
        `Machine: ${machine}. ${WORKERS} workers at ${used.hostTypes} host types × ${used.metrics} metrics, 10% of series updated per second; ` +
          `wrk: 1 thread, ${CONNECTIONS} connections, ${rounds} rounds of ${seconds} s per case, alternating.`,
        '',
        '| Measure | Value |',
        '| --- | --- |',
        `| legacy \`/host_type/X\` (${bytes} B) | ${legacy.toFixed(0)} req/s |`,
        `| static route, same body, same primary | ${ceiling.toFixed(0)} req/s |`,
        `| ratio (target ≥ 0.8) | ${(legacy / ceiling).toFixed(2)} |`,
        `| primary CPU per tick (no request load) | ${idle.cpuMsPerTick.toFixed(1)} ms |`,
        `| IPC bytes per tick, all workers | ${(idle.ipcBytesPerTick / 1024).toFixed(0)} KiB in ${idle.messagesPerTick.toFixed(1)} messages |`,
        `| series in the primary | ${idle.series} |`,
        '',
      ].join('\n')
    );
  } finally {
    child.kill('SIGTERM');
  }
}

if (cluster.isWorker) runWorker();
else if (process.env['BENCH_ROLE'] === 'primary') void runPrimary();
else
  runBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
