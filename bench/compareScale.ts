import { fork } from 'node:child_process';
import { join } from 'node:path';
import {
  createMeterProviderWithLegacyApi,
  startLegacyMetricsServer,
} from '../src';
import { argument } from './ipc';
import {
  hostTypeNames,
  UpdateSchedule,
  Workload,
  type Scale,
} from './workload';

/**
 * `npm run bench:compare [-- --host-types 1000,10000 --traffic false]`: `legacy-metrics-api
 * compare` against the package's own server at N host types × 10 metrics. This process serves
 * the legacy API and the Prometheus exposition from one provider (the benchmarks' workload, a
 * rotating 10% of the series updated every second unless `--traffic false`); compare runs in a
 * child process, which reports its exit status, wall time and peak RSS.
 */

const METRICS = 10;
/** Updates per second come in this many batches, 50 ms apart. */
const UPDATE_BATCHES = 20;

interface ChildReport {
  readonly code: number;
  readonly wallMs: number;
  readonly maxRssMb: number;
  readonly lines: number;
  readonly last: string;
}

async function measure(hostTypes: number, traffic: boolean): Promise<void> {
  const scale: Scale = { name: 'S', hostTypes, metrics: METRICS };
  const telemetry = await createMeterProviderWithLegacyApi({
    legacy: { hostTypes: hostTypeNames(scale) },
    prometheus: { address: '127.0.0.1', port: 0 },
    otlp: { enabled: false },
  });
  const server = await startLegacyMetricsServer(telemetry.legacyReader, {
    port: 0,
  });
  const workload = new Workload(
    telemetry.meterProvider.getMeter('bench'),
    scale
  );
  workload.populate();
  const schedule = new UpdateSchedule(workload, UPDATE_BATCHES);
  const timer = traffic
    ? setInterval(() => schedule.next(), 1000 / UPDATE_BATCHES)
    : undefined;
  // Let a slot pass so that the legacy API serves what was populated.
  await new Promise(resolve => setTimeout(resolve, 1_500));
  try {
    const report = await new Promise<ChildReport>((resolve, reject) => {
      const child = fork(
        join(__dirname, 'compareChild.js'),
        [
          '--legacy',
          `${server.url}/api`,
          '--prometheus',
          telemetry.prometheusUrl!,
          '--quiet',
        ],
        { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }
      );
      let reported: ChildReport | undefined;
      child.on('message', message => {
        reported = message as ChildReport;
      });
      child.on('error', reject);
      child.on('exit', (code, signal) =>
        reported === undefined
          ? reject(new Error(`compare exited (code ${code}, signal ${signal})`))
          : resolve(reported)
      );
    });
    console.log(
      [
        `${hostTypes.toLocaleString('en-US')} host types × ${METRICS} metrics${traffic ? ', traffic on' : ''}:`,
        `exit ${report.code},`,
        `${(report.wallMs / 1000).toFixed(1)} s,`,
        `peak RSS ${Math.round(report.maxRssMb)} MB,`,
        `${report.lines.toLocaleString('en-US')} lines; ${report.last}`,
      ].join(' ')
    );
  } finally {
    if (timer !== undefined) clearInterval(timer);
    await server.close();
    await telemetry.shutdown();
  }
}

async function main(): Promise<void> {
  const sizes = (argument('host-types') ?? '1000,10000').split(',').map(Number);
  const traffic = argument('traffic') !== 'false';
  for (const size of sizes) await measure(size, traffic);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
