import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { ClientTable } from '../../src/http/clientTable';
import {
  FLUSH_AFTER_MS,
  UsageInstruments,
  USAGE_VIEWS,
} from '../../src/http/usageInstruments';
import { UsageCollector } from './usageCollector';

/**
 * When request durations reach the SDK. A collection sees what is pending through the observable
 * callback; without one (an SDK that collected the histogram's storage first would behave so),
 * durations still reach the SDK by count or by time, never later than {@link FLUSH_AFTER_MS}.
 */
describe('UsageInstruments', () => {
  let collector: UsageCollector;
  let provider: MeterProvider;
  let instruments: UsageInstruments;

  beforeEach(() => {
    collector = new UsageCollector();
    provider = new MeterProvider({
      readers: [collector],
      views: [...USAGE_VIEWS],
    });
    instruments = new UsageInstruments(provider, new ClientTable(10, false));
  });

  afterEach(async () => {
    instruments.stop();
    await provider.shutdown();
  });

  const series = () =>
    instruments.series({
      'http.route': '/metrics',
      'http.request.method': 'GET',
    });

  /** Collects every few milliseconds until `count` durations are seen, for at most a second. */
  async function countReaches(count: number): Promise<number> {
    const deadline = Date.now() + 1000;
    let seen = (await collector.durations()).count;
    while (seen < count && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 2));
      seen = (await collector.durations()).count;
    }
    return seen;
  }

  it('should record what is pending when a collection starts', async () => {
    instruments.start();
    const durations = series();
    for (const seconds of [0.5, 0.25, 0.125])
      instruments.addDuration(durations, seconds);
    expect(await collector.durations()).toEqual({
      count: 3,
      sum: 0.875,
      min: 0.125,
      max: 0.5,
    });
  });

  it(`should record a duration within ${FLUSH_AFTER_MS} ms without a collection to start it`, async () => {
    const durations = series();
    instruments.addDuration(durations, 0.5);
    // The collection's own observable callback is not registered: nothing records it yet.
    expect((await collector.durations()).count).toBe(0);
    expect(await countReaches(1)).toBe(1);
    expect(await collector.durations()).toEqual({
      count: 1,
      sum: 0.5,
      min: 0.5,
      max: 0.5,
    });
  });

  it('should record 256 pending durations at once', async () => {
    const durations = series();
    for (let i = 1; i <= 255; i++) instruments.addDuration(durations, i / 1000);
    expect((await collector.durations()).count).toBe(0);
    instruments.addDuration(durations, 0.256);
    expect(await collector.durations()).toEqual({
      count: 256,
      sum: (256 * 257) / 2 / 1000,
      min: 0.001,
      max: 0.256,
    });
  });

  it('should record what is pending when it stops', async () => {
    instruments.addDuration(series(), 0.5);
    instruments.stop();
    expect((await collector.durations()).count).toBe(1);
  });
});
