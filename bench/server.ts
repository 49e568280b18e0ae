import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify from 'fastify';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LegacyMetricsReader, USAGE_VIEWS } from '../src';
import { argument, emit, serveCommands } from './ipc';
import { deprecationHeaders, registerLegacyApis } from './legacyCases';
import {
  hostTypeNames,
  isScaleName,
  SCALES,
  UpdateSchedule,
  Workload,
} from './workload';
import { SERVED_SNAPSHOT } from '../src/reader/ServedStore';

/**
 * The server under test, run as a child of `run.ts`: one fastify app serving, from one
 * MeterProvider, the legacy API (`/api/metrics…`; again under `/deprecated/metrics…` with
 * deprecation headers and usage telemetry on), the Prometheus exporter's handler
 * (`/metrics`, as a user would mount it beside us) and the ceiling: static routes
 * (`/ceiling/<n>`) that send a prepared copy of a legacy body. A timer records into a
 * rotating 10% of the series every second while load runs.
 */

/** With `--variants true`: the ceilings again, sending the deprecation's three headers too. */
export const CEILING_WITH_HEADERS = '/ceiling-with-deprecation-headers';
/** Static routes available to hold ceiling bodies. */
export const CEILING_ROUTES = 8;
/** Updates per second come in this many batches, 50 ms apart. */
const UPDATE_BATCHES = 20;

async function main(): Promise<void> {
  const scaleName = argument('scale') ?? 'S';
  if (!isScaleName(scaleName)) throw new Error(`unknown scale ${scaleName}`);
  const scale = SCALES[scaleName];

  // The host types are known from the configuration before any data point names them.
  const histogramMaxBuckets = argument('histogram-buckets');
  const reader = new LegacyMetricsReader({
    hostTypes: hostTypeNames(scale),
    ...(histogramMaxBuckets === undefined
      ? {}
      : { histogramMaxBuckets: Number(histogramMaxBuckets) }),
  });
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    readers: [reader, prometheus],
    views: [...USAGE_VIEWS],
  });
  const workload = new Workload(provider.getMeter('bench'), scale);
  workload.populate();

  const app = Fastify({ logger: false });
  const variants = argument('variants') === 'true';
  await registerLegacyApis(app, reader, provider, variants);
  app.get('/metrics', (request, reply) => {
    reply.hijack();
    prometheus.getMetricsRequestHandler(request.raw, reply.raw);
  });
  const ceilings: Buffer[] = Array.from({ length: CEILING_ROUTES }, () =>
    Buffer.from('{}')
  );
  for (let i = 0; i < CEILING_ROUTES; i++) {
    app.get(`/ceiling/${i}`, (_request, reply) => {
      void reply.header('content-type', 'application/json').send(ceilings[i]);
    });
  }
  // With --variants: the ceilings again, with the headers the deprecation sends (copied from
  // one of its responses), to show what the headers alone cost on any route.
  const withHeaders: Array<[string, string]> = [];
  if (variants) {
    for (let i = 0; i < CEILING_ROUTES; i++) {
      app.get(`${CEILING_WITH_HEADERS}/${i}`, (_request, reply) => {
        for (const [name, value] of withHeaders) reply.header(name, value);
        void reply.header('content-type', 'application/json').send(ceilings[i]);
      });
    }
  }

  const schedule = new UpdateSchedule(workload, UPDATE_BATCHES);
  let updaterCpuMicros = 0;
  const updater = setInterval(() => {
    const before = process.cpuUsage();
    schedule.next();
    const spent = process.cpuUsage(before);
    updaterCpuMicros += spent.user + spent.system;
  }, 1000 / UPDATE_BATCHES);

  // A coarse resolution keeps the monitor's own timer from costing the server much; blocks of
  // the length that matter here (a tick) are still seen whole.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  let windowStart = {
    cpu: process.cpuUsage(),
    wall: performance.now(),
    updater: 0,
    generation: 0,
  };
  serveCommands({
    /** Copies the current legacy body at `path` into ceiling route `index`. */
    async ceiling(request) {
      const response = await app.inject({
        method: 'GET',
        url: String(request['path']),
        headers: { accept: 'application/json' },
      });
      if (response.statusCode !== 200)
        throw new Error(
          `${String(request['path'])} answered ${response.statusCode}`
        );
      ceilings[Number(request['index'])] = Buffer.from(response.rawPayload);
      if (variants && withHeaders.length === 0)
        withHeaders.push(...(await deprecationHeaders(app)));
      return { bytes: response.rawPayload.length };
    },
    /** Starts a measurement window of this process's CPU. */
    window() {
      windowStart = {
        cpu: process.cpuUsage(),
        wall: performance.now(),
        updater: updaterCpuMicros,
        generation: reader[SERVED_SNAPSHOT]().generation,
      };
      loopDelay.reset();
      return {};
    },
    /** The CPU used since `window`, in ms, and the ticks that ran. */
    usage() {
      const cpu = process.cpuUsage(windowStart.cpu);
      return {
        wallMs: performance.now() - windowStart.wall,
        cpuMs: (cpu.user + cpu.system) / 1000,
        updaterCpuMs: (updaterCpuMicros - windowStart.updater) / 1000,
        ticks: reader[SERVED_SNAPSHOT]().generation - windowStart.generation,
        series: reader.seriesCount,
        loopDelayMaxMs: loopDelay.max / 1e6,
        loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      };
    },
  });

  const stop = (): void => {
    clearInterval(updater);
    void Promise.allSettled([app.close(), provider.shutdown()]).then(() =>
      process.exit(0)
    );
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  emit('listening', {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    uptimeMs: performance.now(),
    series: workload.seriesCount,
  });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
