import { ValueType } from '@opentelemetry/api';
import { join } from 'node:path';
import {
  createMeterProviderWithLegacyApi,
  startLegacyMetricsServer,
  type DeprecationOptions,
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
 * its keys, reads the in-band `legacyApiSunsetDays` through `metrics/*\/count` and
 * `metrics/*\/one`, whichever way its writer stores them, and its reads fail during a brownout
 * and come back after it. The server's clock is the real one plus an offset the test moves, so
 * the schedule can be crossed in seconds.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
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

    afterEach(async () => {
      await stop(collectd);
      collectd = undefined;
      await server?.close();
      server = undefined;
      await telemetry?.shutdown();
      telemetry = undefined;
      clock.offsetMs = 0;
    });

    afterAll(() => {
      dir.remove();
    });

    /** A server on the real clock plus the test's offset, with `deprecation`, serving xmppMessageSent = 7. */
    async function serve(
      deprecation: DeprecationOptions
    ): Promise<LegacyMetricsServer> {
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
        deprecation,
        ...telemetry.legacyApiOptions,
      });
      telemetry.meterProvider
        .getMeter('messaging-server')
        .createCounter('xmppMessageSent', { valueType: ValueType.INT })
        .add(7, { host_type: 'localhost' });
      await telemetry.forceFlush();
      return server;
    }

    it('should read the in-band metric with its existing key, fail during a brownout and recover after it', async () => {
      const collectdPath = requireCommand('collectd', INSTALL_HINT.collectd);
      const start = Date.now();
      await serve({
        since: new Date(start - DAY),
        // An hour less, so that the days left, rounded up, stay 30 while the test runs.
        sunset: new Date(start + SUNSET_DAYS * DAY - HOUR),
        inBand: true,
        enforceSunset: true,
        brownouts: [
          {
            start: new Date(start + BROWNOUT_IN_DAYS * DAY),
            duration: 'PT1H',
          },
        ],
      });

      const url = `${server!.url}/api/metrics/host_type/localhost`;
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
      expect(written.get(SUNSET_ONE)![0]).toBe(SUNSET_DAYS);
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
      const failedReads = (): string[] =>
        collectd!
          .output()
          .slice(outputBefore)
          .split('\n')
          .filter(line => line.includes('response code 410'));
      const failures = await waitUntil(
        'collectd to report two failed reads',
        15_000,
        () => (failedReads().length >= 2 ? failedReads() : undefined),
        started.explain
      );
      expect(reads()).toBe(readsInBrownout);
      expect(failures.length).toBeGreaterThanOrEqual(2);

      // After the window the reads come back, with no change on the poller's side.
      clock.offsetMs = BROWNOUT_IN_DAYS * DAY + 2 * HOUR;
      // 30 days less an hour before the sunset, minus ten days and two hours: 19 days and 21
      // hours, 20 rounded up, once the reader's next snapshot stands for the new time.
      await waitUntil(
        'collectd to read again after the brownout',
        15_000,
        () =>
          reads() > readsInBrownout &&
          lines(SUNSET_COUNT).at(-1) === SUNSET_DAYS - BROWNOUT_IN_DAYS &&
          lines(SUNSET_ONE).at(-1) === SUNSET_DAYS - BROWNOUT_IN_DAYS
            ? true
            : undefined,
        started.explain
      );
    }, 60_000);

    it('should show the days left, the last day as 1 and 0 after the sunset, with a writer that stores rates', async () => {
      const collectdPath = requireCommand('collectd', INSTALL_HINT.collectd);
      const start = Date.now();
      const api = await serve({
        since: new Date(start - DAY),
        // The last day: 3 hours left read 1, not 0.
        sunset: new Date(start + 3 * HOUR),
        inBand: true,
      });
      // The shipped example with the csv writer storing rates, as rrdtool and most writers do.
      const example = exampleConfig(
        join(dir.path, 'rates'),
        `${api.url}/api/metrics/host_type/localhost`
      );
      expect(example).toMatch(/^\s*StoreRates false$/m);
      const runDir = join(dir.path, 'rates');
      const started = await startCollectd(
        collectdPath,
        runDir,
        example.replace(/^(\s*)StoreRates false$/m, '$1StoreRates true')
      );
      collectd = started.collectd;
      const lines = (key: string): number[] =>
        writtenValues(runDir).get(key) ?? [];

      const read = await waitUntil(
        'collectd to write the in-band metric three times',
        15_000,
        () => {
          if (collectd!.exited()) throw new Error('collectd exited');
          return lines(SUNSET_ONE).length >= 3 &&
            lines(SUNSET_COUNT).length >= 3
            ? writtenValues(runDir)
            : undefined;
        },
        started.explain
      );
      // `one`, a gauge, is written as read: the days left.
      expect(new Set(read.get(SUNSET_ONE))).toEqual(new Set([1]));
      // `count`, a derive, is written as its rate: nan at first, then 0, never the days left.
      const counts = read.get(SUNSET_COUNT)!;
      expect(Number.isNaN(counts[0])).toBe(true);
      expect(new Set(counts.slice(1))).toEqual(new Set([0]));

      // Past the sunset (not enforced, so the API still answers): 0.
      clock.offsetMs = 3 * HOUR + 60_000;
      await waitUntil(
        'collectd to write 0 days left',
        15_000,
        () => (lines(SUNSET_ONE).at(-1) === 0 ? true : undefined),
        started.explain
      );
    }, 60_000);
  }
);
