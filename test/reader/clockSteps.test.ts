import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { LegacyMetricsReader } from '../../src';
import { createRig, read, type Rig } from '../helpers';

/*
 * The wall clock steps (an NTP correction, a VM resumed); the window must not. Slots advance on
 * the monotonic clock, and the wall clock only stamps what is served.
 */

const HOUR = 3_600_000;

let rig: Rig | undefined;
afterEach(async () => {
  jest.useRealTimers();
  await rig?.close();
  rig = undefined;
});

describe('LegacyMetricsReader across wall-clock steps', () => {
  it('should keep `one`, the histogram window and `ms_since_reset` exact while the wall clock steps back and forward an hour', async () => {
    const wall = { now: 1_700_000_000_000 };
    const monotonic = { now: 123_456_000 };
    rig = createRig({
      now: () => wall.now,
      monotonicNow: () => monotonic.now,
    });
    const reader = rig.reader;
    const meter = rig.provider.getMeter('app');
    const sent = meter.createCounter('sent');
    const latency = meter.createHistogram('latency');
    const sessions = meter.createUpDownCounter('sessions');
    sessions.add(1, { host_type: 'h' });

    let seconds = 0;
    const ages: number[] = [];
    /** One second: a recording of each, then a collection. */
    async function second(wallStep = 0): Promise<void> {
      wall.now += 1_000 + wallStep;
      monotonic.now += 1_000;
      seconds++;
      sent.add(1, { host_type: 'h' });
      latency.record(seconds % 7, { host_type: 'h' });
      await reader.forceFlush();
      expect(reader.snapshot.timeMs).toBe(wall.now);
      const metrics = read(reader, 'metrics/host_type/h').json.metrics;
      const inWindow = Math.min(seconds, 60);
      expect(metrics.sent).toEqual({ count: seconds, one: inWindow });
      expect(metrics.latency.n).toBe(inWindow);
      ages.push(metrics.sessions.ms_since_reset);
    }

    for (let i = 0; i < 60; i++) await second();
    await second(-HOUR);
    for (let i = 0; i < 300; i++) await second();
    await second(HOUR);
    for (let i = 0; i < 300; i++) await second();

    // Measured on the monotonic clock: one second more on every collection, steps or not.
    expect(ages).toHaveLength(662);
    expect(ages.every((age, i) => age === 1_000 * i)).toBe(true);
    expect(read(reader, 'metrics/all/sent').json).toEqual({
      metric: { count: 662, one: 60 },
    });
  });

  it('should empty the window after a minute without data, wherever the wall clock went', async () => {
    const wall = { now: 1_700_000_000_000 };
    const monotonic = { now: 0 };
    rig = createRig({
      now: () => wall.now,
      monotonicNow: () => monotonic.now,
    });
    rig.provider.getMeter('app').createCounter('sent').add(5);
    await rig.reader.forceFlush();
    wall.now += HOUR;
    monotonic.now += 59_000;
    await rig.reader.forceFlush();
    expect(read(rig.reader, 'metrics/global/sent').json.metric.one).toBe(5);
    wall.now -= 2 * HOUR;
    monotonic.now += 1_000;
    await rig.reader.forceFlush();
    expect(read(rig.reader, 'metrics/global/sent').json.metric).toEqual({
      count: 5,
      one: 0,
    });
  });

  it('should tick on its own timers with the default clocks, unmoved by a step of the system time', async () => {
    // Fake timers move the monotonic clock (performance.now) with the timers; setSystemTime
    // steps Date.now alone, as NTP does.
    jest.useFakeTimers({ now: 1_700_000_000_000 });
    const reader = new LegacyMetricsReader();
    const provider = new MeterProvider({ readers: [reader] });
    try {
      const sent = provider.getMeter('app').createCounter('sent');
      for (let i = 0; i < 120; i++) {
        sent.add(1);
        if (i === 60) jest.setSystemTime(Date.now() - HOUR);
        if (i === 90) jest.setSystemTime(Date.now() + 2 * HOUR);
        await jest.advanceTimersByTimeAsync(1_000);
        expect(read(reader, 'metrics/global/sent').json.metric).toEqual({
          count: i + 1,
          one: Math.min(i + 1, 60),
        });
      }
      expect(reader.snapshot.timeMs).toBe(Date.now());
    } finally {
      await provider.shutdown();
    }
  });
});
