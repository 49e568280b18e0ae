import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { LegacyMetricsReader } from '../../src';
import { WARNING_CODES, WARNING_TYPE } from '../../src/warnings';
import { read } from '../helpers';

const SLOW_MS = 5_000;

let provider: MeterProvider | undefined;
let emitted: jest.SpyInstance;

beforeEach(() => {
  jest.useFakeTimers({ now: 1_700_000_000_000 });
  emitted = jest.spyOn(process, 'emitWarning');
});

afterEach(async () => {
  emitted.mockRestore();
  const closing = provider?.shutdown();
  provider = undefined;
  // Let the slow callbacks still under way finish, so that nothing outlives the test.
  await jest.advanceTimersByTimeAsync(SLOW_MS);
  await closing;
  jest.useRealTimers();
});

describe('LegacyMetricsReader', () => {
  describe('a slow observable callback', () => {
    it('should lose its own observation for the tick and hold nobody else back beyond a slot', async () => {
      // Data is documented as at most one slot old; the reader collects with a time limit of one slot.
      const reader = new LegacyMetricsReader();
      provider = new MeterProvider({ readers: [reader] });
      let slow = false;
      let queue = 1;
      provider
        .getMeter('probes')
        .createObservableGauge('queueLength')
        .addCallback(async result => {
          if (slow) await new Promise(resolve => setTimeout(resolve, SLOW_MS));
          result.observe(queue);
        });
      const sent = provider.getMeter('server').createCounter('xmppMessageSent');
      sent.add(1);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(read(reader, 'metrics/global').json.metrics).toMatchObject({
        queueLength: { value: 1 },
        xmppMessageSent: { count: 1 },
      });

      slow = true;
      queue = 2;
      for (let second = 1; second <= 10; second++) {
        sent.add(1);
        // One slot to reach the tick, at most one more for the callback's time limit.
        await jest.advanceTimersByTimeAsync(2_000);
        expect(
          read(reader, 'metrics/global/xmppMessageSent').json.metric.count
        ).toBe(1 + second);
      }
      // The slow gauge keeps its last observation that arrived in time.
      expect(read(reader, 'metrics/global/queueLength').json.metric.value).toBe(
        1
      );
      const timeouts = emitted.mock.calls.filter(
        ([, options]) =>
          (options as { type?: string })?.type === WARNING_TYPE &&
          (options as { code?: string }).code === WARNING_CODES.collectTimeout
      );
      expect(timeouts.map(([message]) => message as string)).toEqual([
        'LegacyMetricsReader: an observable callback (perhaps of meter "probes", whose gauges reported before and not in this tick) ' +
          'did not finish within the slot (1000 ms); ' +
          'its observations are left out of the ticks it is late for, and the other instruments are served on time',
      ]);
    });

    it('should name no meter for a callback that was slow from its first tick: the SDK says not whose it is', async () => {
      const reader = new LegacyMetricsReader();
      provider = new MeterProvider({ readers: [reader] });
      provider
        .getMeter('probes')
        .createObservableGauge('tcpPortsUsed')
        .addCallback(async result => {
          await new Promise(resolve => setTimeout(resolve, SLOW_MS));
          result.observe(1);
        });
      provider
        .getMeter('server')
        .createObservableGauge('nodeUpTime')
        .addCallback(result => result.observe(7));
      await jest.advanceTimersByTimeAsync(3_000);
      expect(read(reader, 'metrics/global').json.metrics).toEqual({
        nodeUpTime: { value: 7, ms_since_reset: expect.any(Number) },
      });
      const messages = emitted.mock.calls
        .filter(
          ([, options]) =>
            (options as { code?: string })?.code ===
            WARNING_CODES.collectTimeout
        )
        .map(([message]) => message as string);
      expect(messages).toEqual([
        'LegacyMetricsReader: an observable callback did not finish within the slot (1000 ms); ' +
          'its observations are left out of the ticks it is late for, and the other instruments are served on time',
      ]);
    });
  });
});
