import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  DEMO_HOST_TYPES,
  startSimulatedMessagingServer,
  type SimulatedTraffic,
} from '../../src/demo/simulatedMessagingServer';
import {
  startLegacyMetricsServer,
  type LegacyMetricsServer,
} from '../../src/http/startLegacyMetricsServer';
import {
  createMeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApi,
} from '../../src/provider/createMeterProviderWithLegacyApi';
import { seededRandom } from '../support/random';

/** The simulated messaging server, in this process, on free loopback ports. */
export interface LiveDemo {
  readonly telemetry: MeterProviderWithLegacyApi;
  /** The legacy API's base: `http://127.0.0.1:<port>/api`. */
  readonly legacy: string;
  /** The Prometheus endpoint: `http://127.0.0.1:<port>/metrics`. */
  readonly prometheus: string;
  readonly traffic: SimulatedTraffic;
  /** Stops the traffic and makes everything recorded so far visible to the legacy API. */
  pause(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the demo: the one-call provider, the legacy server and the simulated traffic. */
export async function startLiveDemo(
  options: {
    hostTypes?: readonly string[];
    declared?: readonly string[];
    stepMs?: number;
    seed?: number;
    /** Announce a sunset, with the in-band metric and usage telemetry on. */
    deprecated?: boolean;
  } = {}
): Promise<LiveDemo> {
  const hostTypes = options.hostTypes ?? DEMO_HOST_TYPES;
  const telemetry = await createMeterProviderWithLegacyApi({
    legacy: { hostTypes: [...(options.declared ?? hostTypes)] },
    prometheus: { address: '127.0.0.1', port: 0 },
    otlp: { enabled: false },
  });
  let server: LegacyMetricsServer;
  try {
    server = await startLegacyMetricsServer(telemetry.legacyReader, {
      port: 0,
      ...(options.deprecated === true
        ? {
            deprecation: {
              since: '2026-01-01',
              sunset: '2099-01-01',
              inBand: true,
            },
            ...telemetry.legacyApiOptions,
          }
        : {}),
    });
  } catch (error) {
    await telemetry.shutdown();
    throw error;
  }
  const traffic = startSimulatedMessagingServer(
    telemetry.meterProvider.getMeter('messaging-server'),
    {
      hostTypes,
      stepMs: options.stepMs ?? 100,
      random: seededRandom(options.seed ?? 42),
    }
  );
  return {
    telemetry,
    legacy: `${server.url}/api`,
    prometheus: telemetry.prometheusUrl!,
    traffic,
    async pause() {
      traffic.stop();
      await telemetry.forceFlush();
    },
    async close() {
      traffic.stop();
      await server.close();
      await telemetry.shutdown();
    },
  };
}

const MAIN = join(
  resolve(__dirname, '..', '..'),
  'dist',
  'src',
  'cli',
  'main.js'
);

/** Runs the built command to its end (at most 30 s), as a person would. */
export function runBuilt(
  args: string[],
  cwd = resolve(__dirname, '..', '..')
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise(done => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { cwd, timeout: 30_000, encoding: 'utf8' },
      (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr })
    );
  });
}
