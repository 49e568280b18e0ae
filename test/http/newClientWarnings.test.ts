import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  InvalidOptionError,
  legacyMetricsApi,
  LegacyMetricsReader,
} from '../../src';
import { USAGE_INSTRUMENTS } from '../../src/http/usageInstruments';
import { NEW_CLIENT_WARNINGS_PER_MINUTE } from '../../src/http/newClientWarnings';
import { WARNING_CODES } from '../../src/warnings';
import { watchWarnings, type OperatorWarning } from './operatorWarnings';
import { UsageCollector } from './usageCollector';

const NOW = 1_700_000_000_000;
const POLLERS = 200;

const newClient = (i: number): OperatorWarning => ({
  code: WARNING_CODES.newClient,
  message: `legacy metrics API: first request from a new client: 10.0.${i >> 8}.${i & 255}, User-Agent "poller/${i}", GET /api/metrics/global`,
});

describe('usage.logNewClients', () => {
  const clock = { now: NOW };
  let reader: LegacyMetricsReader;
  let collector: UsageCollector;
  let provider: MeterProvider;
  let app: FastifyInstance;
  let warnings: ReturnType<typeof watchWarnings>;

  const start = async (usage: object): Promise<void> => {
    app = Fastify();
    await app.register(legacyMetricsApi, {
      reader,
      prefix: '/api',
      meterProvider: provider,
      usage: { maxClients: 500, ...usage },
    });
  };
  /** One request from poller `i` (its own address and User-Agent). */
  const poll = async (i: number): Promise<void> => {
    const res = await app.inject({
      url: '/api/metrics/global',
      remoteAddress: `10.0.${i >> 8}.${i & 255}`,
      headers: { 'user-agent': `poller/${i}` },
    });
    expect(res.statusCode).toBe(200);
  };
  const pollers = async (from: number, to: number): Promise<void> => {
    for (let i = from; i <= to; i++) await poll(i);
  };
  const requestsPerClient = async (): Promise<number[]> =>
    (await collector.points(USAGE_INSTRUMENTS.clientRequests)).map(
      p => p.value as number
    );

  beforeEach(() => {
    clock.now = NOW;
    reader = new LegacyMetricsReader({
      hostTypes: ['localhost'],
      now: () => clock.now,
    });
    collector = new UsageCollector();
    provider = new MeterProvider({ readers: [reader, collector] });
    warnings = watchWarnings();
  });

  afterEach(async () => {
    warnings.stop();
    await app.close();
    await provider.shutdown();
  });

  it(`should warn of the first ${NEW_CLIENT_WARNINGS_PER_MINUTE} new clients of a minute, then of the rest in one summary when the minute is over`, async () => {
    // logNewClients defaults to true.
    await start({});
    await pollers(1, POLLERS);
    // Within the minute: only the first ten, one by one.
    const firstTen = Array.from({ length: 10 }, (_, i) => newClient(i + 1));
    expect(warnings.emitted()).toEqual(firstTen);
    clock.now += 59_999;
    await poll(1);
    expect(warnings.emitted()).toHaveLength(10);
    // The minute is over: the next request (a known client's) brings the summary.
    clock.now += 1;
    await poll(2);
    const summary: OperatorWarning = {
      code: WARNING_CODES.newClient,
      message:
        'legacy metrics API: 190 more new clients in the last minute; first: 10.0.0.11, User-Agent "poller/11", GET /api/metrics/global',
    };
    expect(warnings.emitted()).toEqual([...firstTen, summary]);
    expect(warnings.logged()).toEqual(
      [...firstTen, summary].map(w => w.message)
    );
    // A new minute starts with the next new client, warned about again.
    await poll(POLLERS + 1);
    expect(warnings.emitted()).toEqual([
      ...firstTen,
      summary,
      newClient(POLLERS + 1),
    ]);
    // Every client is counted apart, whether it was warned about or not.
    const counts = await requestsPerClient();
    expect(counts).toHaveLength(POLLERS + 1);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(POLLERS + 3);
  });

  it('should warn of the clients left to the summary when the app closes within the minute', async () => {
    await start({ logNewClients: true });
    await pollers(1, 15);
    await app.close();
    expect(warnings.emitted().map(w => w.message)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => newClient(i + 1).message),
      'legacy metrics API: 5 more new clients in the last minute; first: 10.0.0.11, User-Agent "poller/11", GET /api/metrics/global',
    ]);
  });

  it('should warn of no new client with logNewClients: false, counting them all the same', async () => {
    await start({ logNewClients: false });
    await pollers(1, POLLERS);
    clock.now += 60_000;
    await pollers(1, POLLERS);
    expect(warnings.emitted()).toEqual([]);
    expect(warnings.logged()).toEqual([]);
    expect(await requestsPerClient()).toEqual(
      Array.from({ length: POLLERS }, () => 2)
    );
  });

  it('should not warn that the client table is full with logNewClients: false', async () => {
    await start({ logNewClients: false, maxClients: 2 });
    await pollers(1, 5);
    expect(warnings.emitted()).toEqual([]);
    expect(await requestsPerClient()).toEqual([1, 1, 3]);
  });

  it.each<[object, string]>([
    [
      { logNewClients: 'no' },
      'legacyMetricsApi.usage.logNewClients: found "no", expected true or false',
    ],
    [
      { logNewClient: false },
      'legacyMetricsApi.usage.logNewClient: found an unknown option, expected maxClients or logNewClients (did you mean logNewClients?)',
    ],
  ])('should reject usage %j', async (usage, message) => {
    app = Fastify();
    const error: unknown = await (async () => {
      await app.register(legacyMetricsApi, { reader, usage: usage as never });
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toBe(message);
  });
});
