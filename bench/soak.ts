import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { XMLValidator } from 'fast-xml-parser';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LegacyMetricsReader, startLegacyMetricsServer } from '../src';
import {
  DEMO_HOST_TYPES,
  startSimulatedMessagingServer,
} from '../src/demo/simulatedMessagingServer';
import { WARNING_TYPE } from '../src/warnings';
import { argument } from './ipc';
import { UpdateSchedule, Workload, hostTypeName, metricName } from './workload';

/*
 * Soak: the legacy API, the official Prometheus exporter and OTLP (to a loopback receiver started
 * here) from one MeterProvider, under steady recording (the simulated messaging server plus a
 * synthetic 100 host types × 50 metrics) and steady polling of legacy endpoints and /metrics.
 * Prints, once a minute, heap used and RSS after a forced GC, the requests served and the errors;
 * at the end, the heap growth from minute 2 to the last minute. Exits 1 on any error.
 *
 *   npm run soak -- --minutes 10
 */

const MINUTE_MS = 60_000;
const SYNTHETIC = { name: 'M' as const, hostTypes: 100, metrics: 50 };
/** One legacy request every this many ms, and one Prometheus scrape every PROMETHEUS_EVERY_MS. */
const LEGACY_EVERY_MS = 50;
const PROMETHEUS_EVERY_MS = 2_000;
const OTLP_EXPORT_MS = 5_000;
const UPDATE_BATCHES = 20;

interface Counts {
  legacy: number;
  prometheus: number;
  otlp: number;
  errors: number;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise(resolve => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

const sleep = (ms: number) =>
  new Promise<void>(resolve => setTimeout(resolve, ms));

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc();
  gc();
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const minutes = Number(argument('minutes') ?? 10);
  if (!Number.isInteger(minutes) || minutes < 2) {
    throw new Error(
      `--minutes must be an integer of at least 2 (got ${argument('minutes')})`
    );
  }
  const counts: Counts = { legacy: 0, prometheus: 0, otlp: 0, errors: 0 };
  const error = (what: string) => {
    counts.errors++;
    if (counts.errors <= 20) console.error(`error: ${what}`);
  };
  diag.setLogger(
    {
      error: (message: string, ...args: unknown[]) =>
        error(`diag: ${message} ${args.map(String).join(' ')}`),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    } as DiagLogger,
    DiagLogLevel.ERROR
  );
  process.on('warning', warning => {
    if (warning.name === WARNING_TYPE) error(`warning: ${warning.message}`);
  });

  // The OTLP receiver: accepts protobuf exports, answers with an empty (valid) response.
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/metrics' ||
        request.headers['content-type'] !== 'application/x-protobuf' ||
        body.length === 0
      ) {
        error(
          `OTLP receiver: ${request.method} ${request.url} ${request.headers['content-type']} (${body.length} bytes)`
        );
        response.writeHead(400).end();
        return;
      }
      counts.otlp++;
      response
        .writeHead(200, { 'content-type': 'application/x-protobuf' })
        .end();
    });
  });
  const receiverUrl = await listen(receiver);

  const workloadHostTypes = Array.from(
    { length: SYNTHETIC.hostTypes },
    (_, i) => hostTypeName(i)
  );
  const legacy = new LegacyMetricsReader({
    hostTypes: [...DEMO_HOST_TYPES, ...workloadHostTypes],
  });
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const otlp = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: `${receiverUrl}/v1/metrics` }),
    exportIntervalMillis: OTLP_EXPORT_MS,
  });
  const provider = new MeterProvider({ readers: [legacy, prometheus, otlp] });

  const traffic = startSimulatedMessagingServer(provider.getMeter('messaging'));
  const workload = new Workload(provider.getMeter('synthetic'), SYNTHETIC);
  workload.populate();
  const schedule = new UpdateSchedule(workload, UPDATE_BATCHES);
  const updater = setInterval(() => schedule.next(), 1_000 / UPDATE_BATCHES);

  const legacyServer = await startLegacyMetricsServer(legacy, { port: 0 });
  // Polling starts from a published snapshot: before the first tick every metric is a 404.
  await legacy.forceFlush();
  const prometheusServer = createServer((request, response) =>
    prometheus.getMetricsRequestHandler(request, response)
  );
  const prometheusUrl = `${await listen(prometheusServer)}/metrics`;

  const paths = [
    '',
    '/all',
    '/all/xmppMessageSent',
    '/global',
    '/host_type/localhost',
    '/host_type/localhost/xmppMessageSent',
    '/host_type/test_type',
    `/host_type/${workloadHostTypes[7]}`,
    `/host_type/${workloadHostTypes[42]}/${metricName(4)}`,
  ];
  let stopping = false;
  const pollLegacy = async () => {
    for (let i = 0; !stopping; i++) {
      const path = paths[i % paths.length]!;
      const xml = Math.floor(i / paths.length) % 2 === 1;
      try {
        const response = await fetch(`${legacyServer.url}/api/metrics${path}`, {
          headers: { accept: xml ? 'application/xml' : 'application/json' },
        });
        const body = await response.text();
        const type = xml ? 'application/xml' : 'application/json';
        if (response.status !== 200)
          error(`GET ${path} (${type}): ${response.status}`);
        else if (response.headers.get('content-type') !== type)
          error(
            `GET ${path}: content-type ${response.headers.get('content-type')}`
          );
        else if (xml ? XMLValidator.validate(body) !== true : !isJson(body))
          error(`GET ${path} (${type}): the body does not parse`);
        else counts.legacy++;
      } catch (cause) {
        error(`GET ${path}: ${String(cause)}`);
      }
      await sleep(LEGACY_EVERY_MS);
    }
  };
  const pollPrometheus = async () => {
    while (!stopping) {
      try {
        const response = await fetch(prometheusUrl);
        const body = await response.text();
        if (response.status !== 200 || !body.includes('xmppMessageSent'))
          error(`GET /metrics: ${response.status} (${body.length} bytes)`);
        else counts.prometheus++;
      } catch (cause) {
        error(`GET /metrics: ${String(cause)}`);
      }
      await sleep(PROMETHEUS_EVERY_MS);
    }
  };
  const polling = Promise.all([pollLegacy(), pollPrometheus()]);

  console.log(
    `soak: ${minutes} minutes, ${workload.seriesCount} synthetic series and the simulated messaging server; ` +
      `legacy API ${legacyServer.url}/api/metrics, Prometheus ${prometheusUrl}, OTLP to ${receiverUrl}/v1/metrics`
  );
  console.log(
    'minute | heap used MB | RSS MB | legacy requests | Prometheus scrapes | OTLP exports | errors'
  );
  const heaps: number[] = [];
  const started = Date.now();
  for (let minute = 1; minute <= minutes; minute++) {
    await sleep(Math.max(0, started + minute * MINUTE_MS - Date.now()));
    collectGarbage();
    const memory = process.memoryUsage();
    heaps.push(memory.heapUsed);
    console.log(
      `${String(minute).padStart(6)} | ${mb(memory.heapUsed).padStart(12)} | ${mb(memory.rss).padStart(6)} | ` +
        `${String(counts.legacy).padStart(15)} | ${String(counts.prometheus).padStart(18)} | ` +
        `${String(counts.otlp).padStart(12)} | ${counts.errors}`
    );
  }

  stopping = true;
  clearInterval(updater);
  traffic.stop();
  await polling;
  await legacyServer.close();
  await close(prometheusServer);
  await provider.shutdown();
  await close(receiver);
  if (counts.otlp === 0) error('the OTLP receiver got no export');
  if (legacy.seriesCount < workload.seriesCount)
    error(
      `the legacy reader holds ${legacy.seriesCount} series, expected at least ${workload.seriesCount}`
    );

  const growth = ((heaps[heaps.length - 1]! - heaps[1]!) / heaps[1]!) * 100;
  console.log(
    `heap growth from minute 2 to minute ${minutes}: ${growth.toFixed(2)}% ` +
      `(${mb(heaps[1]!)} MB → ${mb(heaps[heaps.length - 1]!)} MB); ` +
      `requests served: ${counts.legacy} legacy, ${counts.prometheus} Prometheus, ${counts.otlp} OTLP exports; errors: ${counts.errors}`
  );
  process.exitCode = counts.errors === 0 ? 0 : 1;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

main().catch((cause: unknown) => {
  console.error(cause);
  process.exit(1);
});
