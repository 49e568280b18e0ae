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
import { waitUntil } from '../support/waitUntil';

/** The simulated messaging server, in this process, on free loopback ports. */
export interface LiveDemo {
  readonly telemetry: MeterProviderWithLegacyApi;
  /** The legacy API's base: `http://127.0.0.1:<port>/api`. */
  readonly legacy: string;
  /** The Prometheus endpoint: `http://127.0.0.1:<port>/metrics`. */
  readonly prometheus: string;
  readonly traffic: SimulatedTraffic;
  /**
   * Waits (at most 10 s) until the legacy API serves messages sent and a sample in every
   * histogram, for every host type and globally: the traffic has recorded a bit of everything.
   */
  recorded(): Promise<void>;
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
  const legacy = `${server.url}/api`;
  /** Whether `path` serves only histograms with samples, at least one, and messages sent. */
  const served = async (path: string, global: boolean): Promise<boolean> => {
    const response = await fetch(`${legacy}/metrics/${path}`);
    const { metrics } = (await response.json()) as {
      metrics: Record<string, Record<string, number>>;
    };
    const histograms = Object.values(metrics).filter(value => 'n' in value);
    return (
      histograms.length > 0 &&
      histograms.every(histogram => histogram.n! > 0) &&
      (global || (metrics.xmppMessageSent?.count ?? 0) > 0)
    );
  };
  return {
    telemetry,
    legacy,
    prometheus: telemetry.prometheusUrl!,
    traffic,
    async recorded() {
      const paths = hostTypes.map(
        hostType =>
          `host_type/${encodeURIComponent(hostType.replaceAll(' ', '_'))}`
      );
      await waitUntil(
        'the demo traffic to record every histogram',
        10_000,
        async () => {
          await telemetry.forceFlush();
          for (const path of paths)
            if (!(await served(path, false))) return undefined;
          return (await served('global', true)) ? true : undefined;
        }
      );
    },
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
