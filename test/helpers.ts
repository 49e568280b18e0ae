import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  legacyMetricsApi,
  LegacyMetricsReader,
  type LegacyMetricsReaderOptions,
  type Variant,
} from '../src';
import { jsonSerializer } from '../src/snapshot/jsonSerializer';

/** A MeterProvider with a LegacyMetricsReader on it, and a fake clock the test moves. */
export interface Rig {
  provider: MeterProvider;
  reader: LegacyMetricsReader;
  clock: { now: number };
  /** Collects now (forceFlush) at the clock's current time. */
  flush(): Promise<void>;
  /** Moves the clock and collects. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

export function createRig(options: LegacyMetricsReaderOptions = {}): Rig {
  const clock = { now: 1_700_000_000_000 };
  const reader = new LegacyMetricsReader({ now: () => clock.now, ...options });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    reader,
    clock,
    flush: () => reader.forceFlush(),
    async advance(ms: number) {
      clock.now += ms;
      await reader.forceFlush();
    },
    close: () => provider.shutdown(),
  };
}

/** A fastify app serving the rig's reader at /api. */
export async function createApp(
  reader: LegacyMetricsReader,
  variant: Variant = 'host_type'
): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(legacyMetricsApi, { reader, variant, prefix: '/api' });
  await app.ready();
  return app;
}

/** What the legacy API answers for a path, read straight from the reader's snapshot. */
export function read(
  reader: LegacyMetricsReader,
  path: string,
  variant: Variant = 'host_type'
): { status: number; json: any } {
  const segments = path.split('/').filter(s => s !== '');
  const response = reader.snapshot.respond(variant, segments, jsonSerializer);
  return {
    status: response.status,
    json: JSON.parse(response.body.toString()),
  };
}

/** A rig serving one spiral, `xmppMessageSent` = 7 for host type `localhost`, collected once. */
export async function createServingRig(): Promise<Rig> {
  const rig = createRig({ hostTypes: ['localhost'] });
  rig.provider
    .getMeter('m')
    .createCounter('xmppMessageSent')
    .add(7, { host_type: 'localhost' });
  await rig.flush();
  return rig;
}
