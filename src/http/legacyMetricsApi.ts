import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { performance } from 'node:perf_hooks';
import type { Variant } from '../attributes';
import { hostConstraints } from './hostConstraint';
import type { LegacyApiDeprecationOptions } from './deprecation';
import { FASTIFY_ADAPTER } from './httpAdapter';
import { LegacyApiHandler } from './LegacyApiHandler';
import {
  resolveLegacyApiOptions,
  type ResolvedLegacyApi,
} from './legacyApiOptions';
import type { LegacySnapshotSource } from './LegacySnapshotSource';
import type { LegacyApiUsageOptions } from './usageOptions';

/** Options of the {@link legacyMetricsApi} plugin. Pass `prefix` to `register` as usual. */
export interface LegacyMetricsApiOptions
  extends LegacyApiDeprecationOptions, LegacyApiUsageOptions {
  /** The reader whose snapshots are served, or a cluster primary's `LegacyClusterAggregator`. */
  reader: LegacySnapshotSource;
  /**
   * `host_type` serves `/metrics/host_type/:host_type` (listing key `host_types`); `host` serves
   * the older `/metrics/host/:host` (listing key `hosts`).
   * @default 'host_type'
   */
  variant?: Variant;
  /**
   * Serve only requests whose Host header names this host (port ignored, case-insensitive),
   * as the original's handler `host` did. `_` matches any host; every loopback name and address
   * (`localhost`, `127.0.0.1`, `[::1]`) counts as the same host. Other requests fall through
   * to the application's not-found handler.
   * @default '_'
   */
  allowedHost?: string;
}

/** The options fastify itself gives every plugin. */
const FASTIFY_OPTION_KEYS = ['prefix', 'logLevel', 'logSerializers'];

/**
 * When fastify routed a request to the API (`performance.now()`): the start of its
 * `http.server.request.duration`. A request decoration, so every request has the field from
 * its construction and the stamp costs one store.
 */
const ARRIVAL = Symbol('legacyApiArrival');

interface StampedRequest extends FastifyRequest {
  [ARRIVAL]: number;
}

/** The API's first onRequest hook: fastify runs it after the application's own. */
const stampArrival: onRequestHookHandler = (request, _reply, done) => {
  (request as StampedRequest)[ARRIVAL] = performance.now();
  done();
};

/**
 * The API's routes on `fastify` (the plugin's own context), from resolved options: what the
 * package's own servers register.
 */
export async function legacyApiRoutes(
  fastify: FastifyInstance,
  options: ResolvedLegacyApi
): Promise<void> {
  const { prefix } = fastify;
  const handler = new LegacyApiHandler(options, prefix, FASTIFY_ADAPTER);
  const { usage, announcer } = handler;
  if (announcer !== undefined)
    fastify.addHook('onReady', done => {
      announcer.start();
      done();
    });
  if (usage !== undefined) {
    // Only the API's requests pay for the stamp: the hook is in the plugin's own context.
    fastify.decorateRequest(ARRIVAL, 0);
    fastify.addHook('onRequest', stampArrival);
    usage.start();
  }
  if (announcer !== undefined || usage !== undefined)
    fastify.addHook('onClose', (_instance, done) => {
      announcer?.stop();
      usage?.stop();
      done();
    });
  const serve = (request: FastifyRequest, reply: FastifyReply): void =>
    handler.handle(
      request,
      reply,
      request.url,
      (request as StampedRequest)[ARRIVAL]
    );

  // The route table: the API and everything below it, for every method (405, 501 and OPTIONS
  // are the API's own answers); nothing else under the prefix is ours. The other methods are
  // answered in onRequest, before fastify would read a body: this API is read-only.
  const readMethods = ['GET', 'HEAD', 'OPTIONS'];
  const otherMethods = fastify.supportedMethods.filter(
    method => !readMethods.includes(method)
  );
  const constraints = hostConstraints(fastify, options.allowedHost);
  for (const url of ['/metrics', '/metrics/*']) {
    const routes: RouteOptions[] = [
      { method: readMethods, url, handler: serve },
      // onRequest always answers these methods: the handler is never reached.
      { method: otherMethods, url, onRequest: serve, handler: serve },
    ];
    for (const route of routes)
      fastify.route({ ...route, exposeHeadRoute: false, ...constraints });
  }
}

/**
 * A fastify plugin that serves a {@link LegacyMetricsReader} as the legacy read-only JSON metrics
 * API: register it with a `prefix` (usually `/api`) and the API lives at `<prefix>/metrics`.
 * It claims only `<prefix>/metrics` and what lies below it, so the application's own routes,
 * hooks and not-found handler under the same prefix stay the application's. It keeps its own
 * encapsulation context (so `prefix` applies) and may be registered several times.
 *
 * Until the reader is registered on a MeterProvider, and once it is shut down, the API answers
 * 503 with the error body.
 */
export const legacyMetricsApi = fastifyPlugin(
  async (fastify: FastifyInstance, options: LegacyMetricsApiOptions) =>
    legacyApiRoutes(
      fastify,
      resolveLegacyApiOptions('legacyMetricsApi', options, FASTIFY_OPTION_KEYS)
    ),
  { fastify: '5.x', name: 'otel-legacy-metrics-api', encapsulate: true }
);
