import Fastify, { type FastifyInstance } from 'fastify';
import {
  legacyMetricsApi,
  LegacyMetricsReader,
  type DeprecationOptions,
} from '../../src';
import { WARNING_CODES } from '../../src/warnings';
import { watchWarnings, type OperatorWarning } from './operatorWarnings';

/**
 * A brownout's start and end and the sunset each give one operator warning at the moment they
 * happen, not at the next request: timers on the reader's clock, armed when the app is ready and
 * cleared when it closes. jest's fake timers move `Date.now()`, which the reader's clock follows.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 2026-01-01T00:00:00Z. */
const START = Date.UTC(2026, 0, 1);
/** Beyond setTimeout's longest delay (2^31 − 1 ms, about 24.8 days): its timer re-arms. */
const SUNSET = START + 60 * DAY;

describe('deprecation warnings', () => {
  let app: FastifyInstance | undefined;
  let warnings: ReturnType<typeof watchWarnings>;
  const clock = { offsetMs: 0 };

  beforeEach(() => {
    jest.useFakeTimers({
      now: START,
      // fastify and light-my-request run on these; the schedule only on setTimeout and Date.
      doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'],
    });
    clock.offsetMs = 0;
    warnings = watchWarnings();
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    warnings.stop();
    jest.useRealTimers();
  });

  async function serve(
    deprecation: DeprecationOptions,
    allowedHost?: string
  ): Promise<FastifyInstance> {
    // Not registered on a MeterProvider: no tick, so months of fake time pass at once.
    const reader = new LegacyMetricsReader({
      now: () => Date.now() + clock.offsetMs,
    });
    const served = Fastify({ logger: false });
    await served.register(legacyMetricsApi, {
      reader,
      prefix: '/api',
      deprecation,
      usage: false,
      ...(allowedHost === undefined ? {} : { allowedHost }),
    });
    await served.ready();
    return served;
  }

  /** Moves the fake clock by `ms` (firing the timers due) and returns the warnings emitted meanwhile. */
  function advance(ms: number): OperatorWarning[] {
    const before = warnings.emitted().length;
    jest.advanceTimersByTime(ms);
    return warnings.emitted().slice(before);
  }

  const started = (until: string, where = '/api/metrics') => ({
    code: WARNING_CODES.brownoutStarted,
    message: `legacy metrics API: a scheduled brownout of ${where} started: GET and HEAD answer 410 Gone until ${until}`,
  });
  const ended = (where = '/api/metrics') => ({
    code: WARNING_CODES.brownoutEnded,
    message: `legacy metrics API: the scheduled brownout of ${where} ended: GET and HEAD are answered again`,
  });

  it('should warn once at the start and the end of each brownout and at the enforced sunset, at that moment', async () => {
    app = await serve({
      since: '2025-12-01',
      sunset: new Date(SUNSET),
      enforceSunset: true,
      successor: 'http://127.0.0.1:9464/metrics',
      brownouts: [
        { start: new Date(START + HOUR), duration: 'PT30M' },
        // Overlapping windows are one brownout, as they are served.
        { start: new Date(START + 30 * DAY), duration: 'PT2H' },
        { start: new Date(START + 30 * DAY + HOUR), duration: 'PT2H' },
        // After the enforced sunset: never happens.
        { start: new Date(SUNSET + DAY), duration: 'PT1H' },
      ],
    });
    expect(warnings.emitted()).toEqual([]);

    expect(advance(HOUR - 1)).toEqual([]);
    expect(advance(1)).toEqual([started('2026-01-01T01:30:00Z')]);
    // The API is browned out from that moment, as the warning says.
    expect((await app.inject({ url: '/api/metrics' })).statusCode).toBe(410);
    expect(advance(30 * MINUTE - 1)).toEqual([]);
    expect(advance(1)).toEqual([ended()]);

    expect(advance(30 * DAY - HOUR - 30 * MINUTE - 1)).toEqual([]);
    expect(advance(1)).toEqual([started('2026-01-31T03:00:00Z')]);
    expect(advance(3 * HOUR - 1)).toEqual([]);
    expect(advance(1)).toEqual([ended()]);

    expect(advance(SUNSET - Date.now() - 1)).toEqual([]);
    expect(advance(1)).toEqual([
      {
        code: WARNING_CODES.sunset,
        message:
          'legacy metrics API: /api/metrics reached its sunset (2026-03-02T00:00:00Z): every request answers 410 Gone from now on',
      },
    ]);
    expect(advance(400 * DAY)).toEqual([]);

    // Each once, through both channels.
    const emitted = warnings.emitted();
    expect(emitted.map(warning => warning.code)).toEqual([
      WARNING_CODES.brownoutStarted,
      WARNING_CODES.brownoutEnded,
      WARNING_CODES.brownoutStarted,
      WARNING_CODES.brownoutEnded,
      WARNING_CODES.sunset,
    ]);
    expect(warnings.logged()).toEqual(emitted.map(warning => warning.message));
  });

  it('should name the Host and say when the sunset is not enforced, and when a brownout runs into an enforced one', async () => {
    app = await serve(
      {
        since: '2025-12-01',
        sunset: new Date(START + 2 * HOUR),
        brownouts: [{ start: new Date(START + HOUR), duration: 'PT2H' }],
      },
      'metrics.example.com'
    );
    const where = '/api/metrics (Host metrics.example.com)';
    expect(advance(3 * HOUR)).toEqual([
      started('2026-01-01T03:00:00Z', where),
      {
        code: WARNING_CODES.sunset,
        message: `legacy metrics API: ${where} reached its sunset (2026-01-01T02:00:00Z); it still answers, as the sunset is not enforced`,
      },
      ended(where),
    ]);
    await app.close();

    app = await serve({
      since: '2025-12-01',
      sunset: new Date(Date.now() + 2 * HOUR),
      enforceSunset: true,
      brownouts: [{ start: new Date(Date.now() + HOUR), duration: 'PT2H' }],
    });
    expect(advance(3 * HOUR)).toEqual([
      {
        code: WARNING_CODES.brownoutStarted,
        message:
          'legacy metrics API: a scheduled brownout of /api/metrics started: GET and HEAD answer 410 Gone ' +
          'until 2026-01-01T05:00:00Z, when the sunset switches it off for good',
      },
      {
        code: WARNING_CODES.sunset,
        message:
          'legacy metrics API: /api/metrics reached its sunset (2026-01-01T05:00:00Z): every request answers 410 Gone from now on',
      },
    ]);
  });

  it('should not announce what happened before the app was ready, only what is still to come', async () => {
    // Started during a brownout: only its end is to come.
    app = await serve({
      since: '2025-12-01',
      brownouts: [
        { start: new Date(START - DAY), duration: 'PT1H' },
        { start: new Date(START - HOUR), duration: 'PT2H' },
      ],
    });
    expect(advance(30 * DAY)).toEqual([ended()]);
  });

  it('should warn at the next request when the clock steps past a transition its timer waits for', async () => {
    app = await serve({
      since: '2025-12-01',
      brownouts: [{ start: new Date(START + 10 * DAY), duration: 'PT1H' }],
    });
    // A wall-clock step (or a test's offset) moves the reader's clock without the timers.
    clock.offsetMs = 10 * DAY + 30 * MINUTE;
    expect(warnings.emitted()).toEqual([]);
    expect((await app.inject({ url: '/api/metrics' })).statusCode).toBe(410);
    expect(warnings.emitted()).toEqual([started('2026-01-11T01:00:00Z')]);
    // The timer follows the stepped clock: the end comes at its moment on it.
    expect(advance(30 * MINUTE - 1)).toEqual([]);
    expect(advance(1)).toEqual([ended()]);
    // Stepping back announces nothing again.
    clock.offsetMs = 0;
    await app.inject({ url: '/api/metrics' });
    expect(advance(20 * DAY)).toEqual([]);
  });

  it('should announce nothing once the app is closed, and leave no timer behind', async () => {
    app = await serve({
      since: '2025-12-01',
      sunset: new Date(SUNSET),
      enforceSunset: true,
      brownouts: [{ start: new Date(START + HOUR), duration: 'PT30M' }],
    });
    expect(jest.getTimerCount()).toBe(1);
    await app.close();
    app = undefined;
    expect(jest.getTimerCount()).toBe(0);
    expect(advance(400 * DAY)).toEqual([]);
    expect(warnings.logged()).toEqual([]);
  });
});
