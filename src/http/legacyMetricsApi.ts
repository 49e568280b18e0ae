import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify';
import { VARIANTS, type Variant } from '../attributes';
import { negotiate, type LegacyFormat } from './contentNegotiation';
import { InvalidOptionError } from '../errors';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import type { LegacySerializer } from '../snapshot/serializer';
import type { LegacyResponse, Snapshot } from '../snapshot/Snapshot';
import { xmlSerializer } from '../snapshot/xmlSerializer';
import {
  DeprecationPolicy,
  type LegacyApiDeprecationOptions,
} from './deprecation';
import { InBandSunsetMetric } from './inBandSunsetMetric';
import { UsageTelemetry, type LegacyApiUsageOptions } from './usageTelemetry';

/** Options of the {@link legacyMetricsApi} plugin. Pass `prefix` to `register` as usual. */
export interface LegacyMetricsApiOptions
  extends LegacyApiDeprecationOptions, LegacyApiUsageOptions {
  /** The reader whose snapshots are served. */
  reader: LegacyMetricsReader;
  /**
   * `host_type` serves `/metrics/host_type/:host_type` (listing key `host_types`); `host` serves
   * the older `/metrics/host/:host` (listing key `hosts`).
   * @default 'host_type'
   */
  variant?: Variant;
  /**
   * Serve only requests whose Host header names this host (port ignored, case-insensitive),
   * as the original's handler `host` did. `_` matches any host; `localhost`, `127.0.0.1`
   * and `[::1]` count as the same loopback name.
   * @default '_'
   */
  host?: string;
}

/** The original's `allow` header, in its exact order. */
export const ALLOWED_METHODS = 'OPTIONS, HEAD, GET';
/** Methods the original answered with 405; every other method not allowed gets 501. */
const NOT_ALLOWED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SERIALIZERS: Record<'json' | 'xml', LegacySerializer> = {
  json: jsonSerializer,
  xml: xmlSerializer,
};
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/**
 * The most Accept headers, and the most URLs per snapshot and format, whose outcome a plugin
 * remembers. Pollers send the same few, so a request costs a lookup; arbitrary ones (query
 * strings are ignored, so URLs are unbounded) must not grow memory.
 */
const MEMO_LIMIT = 256;
const REGEX_SPECIALS = /[.*+?^${}()|[\]\\]/g;

/** The host constraint of a handler's `host` setting, or undefined when it matches any host. */
export function hostMatcher(host: string): RegExp | undefined {
  if (host === '_') return undefined;
  const lower = host.toLowerCase();
  const names = LOOPBACK_NAMES.includes(lower) ? LOOPBACK_NAMES : [lower];
  return new RegExp(
    `^(?:${names.map(n => n.replace(REGEX_SPECIALS, '\\$&')).join('|')})(?::\\d+)?$`,
    'i'
  );
}

function sendError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string
): void {
  void reply
    .code(status)
    .header('content-type', jsonSerializer.contentType)
    .send(Buffer.from(jsonSerializer.error(code, message)));
}

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

/**
 * A fastify plugin that serves a {@link LegacyMetricsReader} as the legacy read-only JSON metrics
 * API: register it with a `prefix` (usually `/api`) and the API lives at `<prefix>/metrics`.
 * Not wrapped in fastify-plugin, so that `prefix` applies.
 */
export async function legacyMetricsApi(
  fastify: FastifyInstance,
  options: LegacyMetricsApiOptions
): Promise<void> {
  const {
    reader,
    variant = 'host_type',
    host = '_',
  } = options ?? ({} as LegacyMetricsApiOptions);
  if (!(reader instanceof LegacyMetricsReader)) {
    throw new InvalidOptionError(
      `legacyMetricsApi: reader must be a LegacyMetricsReader (got ${typeof reader})`
    );
  }
  if (!VARIANTS.includes(variant)) {
    throw new InvalidOptionError(
      `legacyMetricsApi: variant must be "host_type" or "host" (got ${JSON.stringify(variant)})`
    );
  }
  if (typeof host !== 'string' || host === '') {
    throw new InvalidOptionError(
      `legacyMetricsApi: host must be a non-empty string (got ${JSON.stringify(host)})`
    );
  }
  const prefixLength = fastify.prefix.length;
  // Deprecation and usage telemetry: decided here, nothing installed when not configured.
  const deprecation = DeprecationPolicy.fromOptions(
    options,
    'legacyMetricsApi: '
  );
  const inBand =
    deprecation?.settings.inBand === true
      ? new InBandSunsetMetric(deprecation, variant, reader.allMetricsAreGlobal)
      : undefined;
  const usage = UsageTelemetry.fromOptions(options, 'legacyMetricsApi: ', {
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

  const handler = (request: FastifyRequest, reply: FastifyReply): void => {
    if (deprecation?.intercept(request, reply, reader.now()) === true) return;
    const method = request.method;
    if (method === 'OPTIONS') {
      void reply.code(200).header('allow', ALLOWED_METHODS).send();
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      if (NOT_ALLOWED_METHODS.has(method)) {
        reply.header('allow', ALLOWED_METHODS);
        sendError(
          reply,
          405,
          'method_not_allowed',
          `${method} is not allowed; allowed: ${ALLOWED_METHODS}`
        );
      } else {
        sendError(
          reply,
          501,
          'not_implemented',
          `${method} is not implemented`
        );
      }
      return;
    }
    const format = negotiateMemo(request.headers.accept);
    if (format === 'malformed') {
      sendError(reply, 400, 'bad_request', 'malformed Accept header');
      return;
    }
    if (format === 'not-acceptable') {
      void reply.code(406).header('vary', 'Accept').send();
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
          reply,
          400,
          'bad_request',
          'malformed percent-encoding in the path'
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

  const matcher = hostMatcher(host);
  const route = (url: string): RouteOptions => ({
    method: fastify.supportedMethods,
    url,
    handler: usage === undefined ? handler : usage.wrap(handler, fastify),
    exposeHeadRoute: false,
    ...(matcher === undefined ? {} : { constraints: { host: matcher } }),
  });
  fastify.route(route('/'));
  fastify.route(route('/*'));
}
