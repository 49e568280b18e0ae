import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { VARIANTS, type Variant } from '../attributes';
import { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import {
  checkOptionObject,
  invalidOption,
  nonEmptyStringOption,
  oneOfOption,
} from '../optionValidation';
import type { LegacyResponse, Snapshot } from '../snapshot/Snapshot';
import { negotiate, type LegacyFormat } from './contentNegotiation';
import { SERIALIZERS, sendError } from './errorResponse';
import { ANY_HOST, hostConstraints } from './hostConstraint';
import {
  DeprecationPolicy,
  type LegacyApiDeprecationOptions,
} from './deprecation';
import { announceTransitions } from './deprecationAnnouncer';
import { InBandSunsetMetric } from './inBandSunsetMetric';
import {
  isClusterAggregator,
  type LegacySnapshotSource,
} from './LegacySnapshotSource';
import { UsageTelemetry, type LegacyApiUsageOptions } from './usageTelemetry';

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
  host?: string;
}

/** The plugin's option keys, with those fastify itself gives every plugin. */
const PLUGIN_OPTION_KEYS = [
  'reader',
  'variant',
  'host',
  'deprecation',
  'defaultSuccessor',
  'meterProvider',
  'usage',
  'prefix',
  'logLevel',
  'logSerializers',
];

/** A route handler or onRequest hook that answers the request. */
export type RequestListener = (
  request: FastifyRequest,
  reply: FastifyReply
) => void;

/** Answers a request at `nowMs`, the reader's clock read once for the request. */
export type Answer = (
  request: FastifyRequest,
  reply: FastifyReply,
  nowMs: number
) => void;

/** The original's `allow` header, in its exact order. */
export const ALLOWED_METHODS = 'OPTIONS, HEAD, GET';
/** Methods the original answered with 405; every other method not allowed gets 501. */
const NOT_ALLOWED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * The most Accept headers, and the most URLs per snapshot and format, whose outcome a plugin
 * remembers. Pollers send the same few, so a request costs a lookup; arbitrary ones (query
 * strings are ignored, so URLs are unbounded) must not grow memory.
 */
const MEMO_LIMIT = 256;
/** Why a reader that is not serving answers 503. */
const UNAVAILABLE = {
  unregistered: 'the reader is not registered on a MeterProvider',
  shutdown: 'the reader is shut down',
} as const;
const AGGREGATOR_UNAVAILABLE = {
  unregistered: 'the cluster aggregator is not started',
  shutdown: 'the cluster aggregator is shut down',
} as const;

/**
 * Splits the path below the prefix into percent-decoded segments. A trailing slash is ignored;
 * an empty inner segment (`//`) gives undefined (404), malformed percent-encoding null (400).
 */
export function pathSegments(
  url: string,
  prefixLength: number
): string[] | undefined | null {
  const queryAt = url.indexOf('?');
  const path = (queryAt < 0 ? url : url.slice(0, queryAt)).slice(prefixLength);
  if (path === '' || path === '/') return [];
  const parts = path.split('/');
  // parts[0] is the empty string before the leading slash.
  const end = parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
  const segments: string[] = [];
  for (let i = 1; i < end; i++) {
    const part = parts[i]!;
    if (part === '') return undefined;
    try {
      segments.push(part.includes('%') ? decodeURIComponent(part) : part);
    } catch {
      return null;
    }
  }
  return segments;
}

function validatePluginOptions(options: unknown): {
  reader: LegacySnapshotSource;
  variant: Variant;
  host: string;
} {
  checkOptionObject('legacyMetricsApi', options, PLUGIN_OPTION_KEYS);
  const { reader } = options;
  if (!(reader instanceof LegacyMetricsReader) && !isClusterAggregator(reader))
    invalidOption(
      'legacyMetricsApi.reader',
      reader,
      'a LegacyMetricsReader or a LegacyClusterAggregator'
    );
  return {
    reader,
    variant: oneOfOption(
      'legacyMetricsApi.variant',
      options.variant,
      VARIANTS,
      'host_type'
    ),
    host: nonEmptyStringOption('legacyMetricsApi.host', options.host, ANY_HOST),
  };
}

async function legacyMetricsApiPlugin(
  fastify: FastifyInstance,
  options: LegacyMetricsApiOptions
): Promise<void> {
  const { reader, variant, host } = validatePluginOptions(options);
  const unavailable = isClusterAggregator(reader)
    ? AGGREGATOR_UNAVAILABLE
    : UNAVAILABLE;
  const prefixLength = fastify.prefix.length;
  // Deprecation and usage telemetry: decided here, nothing installed when not configured.
  const deprecation = DeprecationPolicy.fromOptions(
    options,
    'legacyMetricsApi'
  );
  if (deprecation !== undefined)
    announceTransitions(
      fastify,
      deprecation,
      `${fastify.prefix}/metrics${host === ANY_HOST ? '' : ` (Host ${host})`}`,
      () => reader.now()
    );
  const inBand =
    deprecation?.settings.inBand === true
      ? new InBandSunsetMetric(deprecation, variant, reader.allMetricsAreGlobal)
      : undefined;
  const usage = UsageTelemetry.fromOptions(options, 'legacyMetricsApi', {
    prefix: fastify.prefix,
    variant,
    clock: () => reader.now(),
    deprecated: deprecation !== undefined,
  });

  const negotiated = new Map<
    string | undefined,
    ReturnType<typeof negotiate>
  >();
  const negotiateMemo = (
    accept: string | undefined
  ): ReturnType<typeof negotiate> => {
    let format = negotiated.get(accept);
    if (format === undefined) {
      format = negotiate(accept);
      if (negotiated.size < MEMO_LIMIT) negotiated.set(accept, format);
    }
    return format;
  };
  // The responses of the current snapshot by URL, per format: the snapshot already serializes each
  // body once; this also spares parsing the path and building the snapshot's cache key.
  let memoSnapshot: Snapshot | undefined;
  const memo: Record<LegacyFormat, Map<string, LegacyResponse>> = {
    json: new Map(),
    xml: new Map(),
  };

  /**
   * Answers every method but GET, HEAD and OPTIONS before fastify reads a body: this API is
   * read-only, so a body is never parsed whatever its type and length.
   */
  const rejectMethod: Answer = (request, reply, nowMs) => {
    if (deprecation?.intercept(request, reply, nowMs) === true) return;
    const method = request.method;
    if (NOT_ALLOWED_METHODS.has(method)) {
      reply.header('allow', ALLOWED_METHODS);
      sendError(
        request,
        reply,
        405,
        `${method} is not allowed; allowed: ${ALLOWED_METHODS}`
      );
    } else {
      sendError(request, reply, 501, `${method} is not implemented`);
    }
  };

  const handler: Answer = (request, reply, nowMs) => {
    if (deprecation?.intercept(request, reply, nowMs) === true) return;
    if (request.method === 'OPTIONS') {
      void reply.code(200).header('allow', ALLOWED_METHODS).send();
      return;
    }
    const format = negotiateMemo(request.headers.accept);
    if (format === 'malformed') {
      sendError(request, reply, 400, 'malformed Accept header', 'json');
      return;
    }
    if (format === 'not-acceptable') {
      void reply.code(406).header('vary', 'Accept').send();
      return;
    }
    const status = reader.status;
    if (status !== 'serving') {
      sendError(request, reply, 503, unavailable[status], format);
      return;
    }
    const serializer = SERIALIZERS[format];
    const snapshot = reader.snapshot;
    if (snapshot !== memoSnapshot) {
      memoSnapshot = snapshot;
      memo.json.clear();
      memo.xml.clear();
    }
    const url = request.url;
    let response = memo[format].get(url);
    if (response === undefined) {
      const segments = pathSegments(url, prefixLength);
      if (segments === null) {
        sendError(
          request,
          reply,
          400,
          'malformed percent-encoding in the path',
          format
        );
        return;
      }
      if (segments === undefined) {
        response = {
          status: 404,
          body: Buffer.from(
            serializer.error('not_found', 'empty path segment')
          ),
        };
      } else {
        response =
          inBand === undefined
            ? snapshot.respond(variant, segments, serializer)
            : inBand.respond(snapshot, segments, format);
        if (response.status === 200 && memo[format].size < MEMO_LIMIT)
          memo[format].set(url, response);
      }
    }
    void reply
      .code(response.status)
      .header('content-type', serializer.contentType)
      .header('vary', 'Accept')
      .send(response.body);
  };

  // The route table: the API and everything below it, for every method (405, 501 and OPTIONS
  // are the API's own answers); nothing else under the prefix is ours. The other methods are
  // answered in onRequest, before fastify would read a body.
  const paths = ['/metrics', '/metrics/*'];
  const readMethods = ['GET', 'HEAD', 'OPTIONS'];
  const otherMethods = fastify.supportedMethods.filter(
    method => !readMethods.includes(method)
  );
  const constraints = hostConstraints(fastify, host);
  // Usage telemetry, when configured, records every answer of both routes and reads the clock
  // for the handler; without it the clock is read only when a deprecation needs it.
  usage?.attach(fastify);
  const clocked = (answer: Answer): RequestListener =>
    usage !== undefined
      ? usage.wrap(answer)
      : deprecation !== undefined
        ? (request, reply) => answer(request, reply, reader.now())
        : (request, reply) => answer(request, reply, 0);
  const served = clocked(handler);
  const rejected = clocked(rejectMethod);
  for (const url of paths) {
    const routes: RouteOptions[] = [
      { method: readMethods, url, handler: served },
      // onRequest always answers these methods: the handler is never reached.
      { method: otherMethods, url, onRequest: rejected, handler: served },
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
export const legacyMetricsApi = fastifyPlugin(legacyMetricsApiPlugin, {
  fastify: '5.x',
  name: 'otel-legacy-metrics-api',
  encapsulate: true,
});
