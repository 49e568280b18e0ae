import { ValueType } from '@opentelemetry/api';
import { join } from 'node:path';
import {
  createMeterProviderWithLegacyApi,
  startLegacyMetricsServer,
  type LegacyMetricsServer,
  type MeterProviderWithLegacyApi,
} from '../../src';
import { exampleConfig, startCollectd, writtenValues } from './collectdSupport';
import {
  INSTALL_HINT,
  requireCommand,
  describeWithClients,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from './support';

/**
 * What a legacy poller sees of the deprecation: the shipped collectd example, with no change to
 * its keys, reads the in-band `legacyApiSunsetDays` through `metrics/*\/count`, and its reads
 * fail during a brownout and come back after it. The server's clock is the real one plus an
 * offset the test moves, so the schedule can be crossed in seconds.
 */

const DAY = 86_400_000;
const SUNSET_DAYS = 30;
const BROWNOUT_IN_DAYS = 10;
const SUNSET_COUNT = 'derive:metrics-legacyApiSunsetDays-count';
const SUNSET_ONE = 'gauge:metrics-legacyApiSunsetDays-one';
const SENT_COUNT = 'derive:metrics-xmppMessageSent-count';

describeWithClients('collectd')(
  'collectd curl_json polling a deprecated legacy API',
  () => {
    let telemetry: MeterProviderWithLegacyApi | undefined;
    let server: LegacyMetricsServer | undefined;
    let collectd: Tracked | undefined;
    const dir = temporaryDirectory('collectd-deprecation-');
    const clock = { offsetMs: 0 };

    afterAll(async () => {
      await stop(collectd);
      await server?.close();
      await telemetry?.shutdown();
      dir.remove();
    });

    it('should read the in-band metric with its existing key, fail during a brownout and recover after it', async () => {
      const collectdPath = requireCommand('collectd', INSTALL_HINT.collectd);
      const start = Date.now();
      telemetry = await createMeterProviderWithLegacyApi({
        legacy: {
          hostTypes: ['localhost'],
          now: () => Date.now() + clock.offsetMs,
        },
        prometheus: false,
        otlp: { enabled: false },
      });
      server = await startLegacyMetricsServer(telemetry.legacyReader, {
        port: 0,
        deprecation: {
          since: new Date(start - DAY),
          // An hour more, so that the whole days left stay 30 while the test runs.
          sunset: new Date(start + SUNSET_DAYS * DAY + 3_600_000),
          inBand: true,
          enforceSunset: true,
          brownouts: [
            {
              start: new Date(start + BROWNOUT_IN_DAYS * DAY),
              duration: 'PT1H',
            },
          ],
        },
        ...telemetry.legacyApiOptions,
      });
      telemetry.meterProvider
        .getMeter('messaging-server')
        .createCounter('xmppMessageSent', { valueType: ValueType.INT })
        .add(7, { host_type: 'localhost' });
      await telemetry.forceFlush();

      const url = `${server.url}/api/metrics/host_type/localhost`;
      const runDir = join(dir.path, 'example');
      const started = await startCollectd(
        collectdPath,
        runDir,
        exampleConfig(runDir, url)
      );
      collectd = started.collectd;
      const lines = (key: string): number[] =>
        writtenValues(runDir).get(key) ?? [];
      const reads = (): number => lines(SENT_COUNT).length;

      const written = await waitUntil(
        'collectd to read the in-band metric',
        15_000,
        () => {
          if (collectd!.exited()) throw new Error('collectd exited');
          return lines(SUNSET_COUNT).length >= 1 &&
            lines(SUNSET_ONE).length >= 1
            ? writtenValues(runDir)
            : undefined;
        },
        started.explain
      );
      expect(written.get(SUNSET_COUNT)![0]).toBe(SUNSET_DAYS);
      expect(written.get(SUNSET_ONE)![0]).toBe(0);
      expect(written.get(SENT_COUNT)![0]).toBe(7);

      // Into the brownout: every read gets 410, which collectd reports and writes nothing for.
      clock.offsetMs = BROWNOUT_IN_DAYS * DAY + 60_000;
      const outputBefore = collectd.output().length;
      await waitUntil(
        'collectd to report a failed read',
        15_000,
        () =>
          /response code 410/.test(collectd!.output().slice(outputBefore))
            ? true
            : undefined,
        started.explain
      );
      const readsInBrownout = reads();
      await new Promise(resolve => setTimeout(resolve, 2_500));
      const failures = collectd
        .output()
        .slice(outputBefore)
        .split('\n')
        .filter(line => line.includes('response code 410'));
      expect(reads()).toBe(readsInBrownout);
      expect(failures.length).toBeGreaterThanOrEqual(2);

      // After the window the reads come back, with no change on the poller's side.
      clock.offsetMs = BROWNOUT_IN_DAYS * DAY + 2 * 3_600_000;
      // 30 days and an hour before the sunset, minus ten days and two hours: 19 whole days, once
      // the reader's next snapshot stands for the new time.
      await waitUntil(
        'collectd to read again after the brownout',
        15_000,
        () =>
          reads() > readsInBrownout &&
          lines(SUNSET_COUNT).at(-1) === SUNSET_DAYS - BROWNOUT_IN_DAYS - 1
            ? true
            : undefined,
        started.explain
      );
    }, 60_000);
  }
);
