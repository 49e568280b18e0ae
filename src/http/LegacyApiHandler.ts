import { performance } from 'node:perf_hooks';
import { parseLegacyRoute, type LegacyRoute } from '../route/legacyRoute';
import { BoundedMemo } from './BoundedMemo';
import { negotiate, type LegacyFormat } from './contentNegotiation';
import { DeprecationPolicy } from './deprecation';
import {
  announceTransitions,
  type DeprecationAnnouncer,
} from './deprecationAnnouncer';
import { SERIALIZERS, sendErrorWith } from './errorResponse';
import { ANY_HOST } from './hostConstraint';
import type { HttpAdapter } from './httpAdapter';
import { InBandSunsetMetric } from './inBandSunsetMetric';
import type { ResolvedLegacyApi } from './legacyApiOptions';
import { SERVED_SNAPSHOT } from '../reader/ServedStore';
import { isClusterAggregator } from './LegacySnapshotSource';
import { UsageTelemetry } from './usageTelemetry';

/** The original's `allow` header, in its exact order. */
export const ALLOWED_METHODS = 'OPTIONS, HEAD, GET';
/** Methods the original answered with 405; every other method not allowed gets 501. */
const NOT_ALLOWED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The most URLs whose routes a mount keeps. */
const ROUTE_MEMO_LIMIT = 1024;
/** Why a reader that is not serving answers 503. */
const UNAVAILABLE = {
  unregistered: 'the reader is not registered on a MeterProvider',
  shutdown: 'the reader is shut down',
} as const;
const AGGREGATOR_UNAVAILABLE = {
  unregistered: 'the cluster aggregator is not started',
  shutdown: 'the cluster aggregator is shut down',
} as const;

/** An error to answer with: status, message and format (by default the negotiated one, else JSON). */
type Refusal = readonly [
  status: number,
  message: string,
  format?: LegacyFormat,
];

/**
 * Routes and answers requests to the legacy API, whatever the framework: its routes, statuses,
 * headers, content negotiation, deprecation and usage telemetry. Each request's path is parsed
 * once into a {@link LegacyRoute} that the answer and the telemetry share; the body comes from
 * the snapshot's one response cache.
 */
export class LegacyApiHandler<Req, Rep> {
  /** The mount's usage telemetry and deprecation warnings, which its entry point starts and stops. */
  readonly usage: UsageTelemetry | undefined;
  readonly announcer: DeprecationAnnouncer | undefined;
  private readonly _deprecation: DeprecationPolicy | undefined;
  private readonly _inBand: InBandSunsetMetric | undefined;
  private readonly _unavailable: Record<'unregistered' | 'shutdown', string>;
  /** Whether a request reads the reader's clock: only a deprecation or telemetry needs it. */
  private readonly _clocked: boolean;
  /** Routes of URLs seen, so that a poller's repeated URL is parsed once, not per request. */
  private readonly _routes: BoundedMemo<string, LegacyRoute>;

  /** Serves `_mount` at `prefix` (`/api`; `''` for none) through `_adapter`. */
  constructor(
    private readonly _mount: ResolvedLegacyApi,
    prefix: string,
    private readonly _adapter: HttpAdapter<Req, Rep>
  ) {
    const { reader, variant, allowedHost } = _mount;
    const deprecation =
      _mount.deprecation && new DeprecationPolicy(_mount.deprecation);
    this._deprecation = deprecation;
    this.usage = UsageTelemetry.create(
      _mount.usage,
      { prefix, variant },
      deprecation !== undefined
    );
    if (deprecation?.settings.inBand === true)
      this._inBand = new InBandSunsetMetric(deprecation);
    if (deprecation !== undefined)
      this.announcer = announceTransitions(
        deprecation,
        `${prefix}/metrics${allowedHost === ANY_HOST ? '' : ` (Host ${allowedHost})`}`,
        () => reader.now()
      );
    this._unavailable = isClusterAggregator(reader)
      ? AGGREGATOR_UNAVAILABLE
      : UNAVAILABLE;
    this._clocked = deprecation !== undefined || this.usage !== undefined;
    this._routes = new BoundedMemo(ROUTE_MEMO_LIMIT, url =>
      parseLegacyRoute(url, prefix.length)
    );
  }

  /**
   * Answers a request whose URL's path lies below the prefix (`/metrics/…`),
   * and records it when usage telemetry is on; `arrivalMs` (`performance.now()`) starts its
   * duration. The answer and the record share one reading of the reader's clock.
   */
  handle(request: Req, reply: Rep, url: string, arrivalMs: number): void {
    const nowMs = this._clocked ? this._mount.reader.now() : 0;
    const route = this._routes.get(url);
    const answer = this._answer(request, reply, route, nowMs);
    if (typeof answer !== 'number')
      sendErrorWith(this._adapter, request, reply, ...answer);
    const status = typeof answer === 'number' ? answer : answer[0];
    // The reply was handed to Node synchronously: the duration ends now, as the HTTP
    // instrumentation's `response.end` marks it.
    this.usage?.record(
      request,
      this._adapter,
      status,
      route,
      nowMs,
      (performance.now() - arrivalMs) / 1000
    );
  }

  /** Answers the request and returns the status sent, or returns the error to answer with. */
  private _answer(
    request: Req,
    reply: Rep,
    route: LegacyRoute,
    nowMs: number
  ): number | Refusal {
    const adapter = this._adapter;
    const { reader, variant } = this._mount;
    const deprecation = this._deprecation;
    const raw = adapter.raw(request);
    const method = raw.method ?? 'GET';
    const format = negotiate(raw.headers.accept);
    if (deprecation !== undefined) {
      for (const [name, value] of deprecation.headers)
        adapter.header(reply, name, value);
      const gone = deprecation.gone(method, nowMs);
      if (gone !== undefined) {
        const goneFormat = format === 'xml' ? 'xml' : 'json';
        return this._send(reply, 410, gone[goneFormat], goneFormat);
      }
    }
    if (method !== 'GET' && method !== 'HEAD') {
      if (method === 'OPTIONS') {
        adapter.header(reply, 'allow', ALLOWED_METHODS);
        adapter.send(reply, 200);
        return 200;
      }
      if (!NOT_ALLOWED_METHODS.has(method))
        return [501, `${method} is not implemented`];
      adapter.header(reply, 'allow', ALLOWED_METHODS);
      return [405, `${method} is not allowed; allowed: ${ALLOWED_METHODS}`];
    }
    if (format === 'malformed') return [400, 'malformed Accept header', 'json'];
    if (format === 'not-acceptable') {
      adapter.header(reply, 'vary', 'Accept');
      adapter.send(reply, 406);
      return 406;
    }
    const status = reader.status;
    if (status !== 'serving') return [503, this._unavailable[status], format];
    if (route.kind === 'malformed')
      return [400, 'malformed percent-encoding in the path', format];
    const served = reader[SERVED_SNAPSHOT]?.() ?? reader.snapshot;
    const snapshot = this._inBand?.decorate(served) ?? served;
    const response = snapshot.respond(variant, route, SERIALIZERS[format]);
    return this._send(reply, response.status, response.body, format);
  }

  private _send(
    reply: Rep,
    status: number,
    body: Buffer,
    format: 'json' | 'xml'
  ): number {
    const adapter = this._adapter;
    adapter.header(reply, 'content-type', SERIALIZERS[format].contentType);
    adapter.header(reply, 'vary', 'Accept');
    adapter.send(reply, status, body);
    return status;
  }
}
