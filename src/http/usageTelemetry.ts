/**
 * Who still polls the legacy API: the plugin's own OpenTelemetry instruments (the HTTP semantic
 * conventions' request duration, requests per client and response status, each client's last
 * request time) and a one-line warning at each new client, except the package's own tools.
 * Attribute sets are prepared once per route, status and client, and the client table is
 * bounded, so a scan cannot grow memory.
 */
import {
  metrics,
  type Attributes,
  type Histogram,
  type MeterProvider,
  type ObservableCounter,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import { AggregationType, type ViewOptions } from '@opentelemetry/sdk-metrics';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import { performance } from 'node:perf_hooks';
import { PACKAGE_METER_NAME, type Variant } from '../attributes';
import { emitLegacyWarning, WARNING_CODES } from '../warnings';
import { identifyClient, OTHER_CLIENT } from './clientIdentity';
import type { Answer, RequestListener } from './legacyMetricsApi';
import { usageOptions, type LegacyApiUsageOptions } from './usageOptions';

export { OTHER_CLIENT } from './clientIdentity';
export {
  DEFAULT_USAGE_OPTIONS,
  usageOptions,
  type LegacyApiUsageOptions,
  type UsageOptions,
} from './usageOptions';

/** The names of the usage instruments. */
export const USAGE_INSTRUMENTS = Object.freeze({
  /** Histogram, seconds, as the HTTP semantic conventions define it. */
  requestDuration: 'http.server.request.duration',
  /** Counter (observable) of requests by client and route. */
  clientRequests: 'legacy_api.client.requests',
  /** Observable gauge: a client's last request on a route, in unix seconds. */
  clientLastRequest: 'legacy_api.client.last_request.time',
});

/** The semantic conventions' buckets for `http.server.request.duration`. */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];
/**
 * Views that make each request's duration one recording whatever the number of readers. Without a
 * View the SDK keeps a storage per reader, and a reader with its own histogram aggregation (the
 * legacy reader's exponential one) costs a second recording per request. `createMeterProviderWithLegacyApi`
 * adds them; give them to your own MeterProvider (`views`) for the same effect.
 */
export const USAGE_VIEWS: readonly ViewOptions[] = Object.freeze([
  {
    meterName: PACKAGE_METER_NAME,
    instrumentName: USAGE_INSTRUMENTS.requestDuration,
    aggregation: {
      type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM,
      options: { boundaries: DURATION_BUCKETS },
    },
  } satisfies ViewOptions,
]);

/** How many request durations wait at most before they are recorded. */
const PENDING_LIMIT = 256;

/** Methods the HTTP semantic conventions name; every other method is `_OTHER`. */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
  'QUERY',
]);
/** The most URLs whose route template is remembered: query strings make URLs unbounded. */
const ROUTE_MEMO_LIMIT = 256;

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

/** One client on one route with one response status: its attributes, prepared once, and what it did. */
interface RouteSlot {
  readonly attributes: Attributes;
  /** Requests so far: the counter is observed from it, so a request costs an increment. */
  count: number;
  lastMs: number;
}

/** One attribute set of `http.server.request.duration` and its durations not yet recorded. */
interface DurationSeries {
  readonly attributes: Attributes;
  readonly pending: number[];
}

/** Duration series by method and status, for one route template. */
type DurationsByMethod = Map<string, Map<number, DurationSeries>>;

interface Client {
  readonly attributes: Attributes;
  /** By response status and route template. */
  readonly routes: Map<string, RouteSlot>;
}

/**
 * What the last request on a connection was recorded under. Keep-alive pollers repeat the same
 * request, so a request that matches costs a few comparisons instead of the lookups behind them.
 */
interface ConnectionMemo {
  readonly userAgent: string | undefined;
  readonly url: string;
  readonly method: string;
  readonly status: number;
  readonly client: Client;
  readonly series: DurationSeries;
  readonly slot: RouteSlot;
}

/**
 * The usage telemetry of one plugin registration. {@link UsageTelemetry.fromOptions} decides at
 * registration whether there is any; when there is none, no hook is installed.
 */
export class UsageTelemetry {
  private readonly _duration: Histogram;
  private readonly _requests: ObservableCounter;
  private readonly _lastRequest: ObservableGauge;
  private readonly _clients = new Map<string, Client>();
  private readonly _other: Client;
  private _folded = false;
  /** The last request of each connection (its socket), see {@link ConnectionMemo}. */
  private readonly _connections = new WeakMap<object, ConnectionMemo>();
  /** Route template and its duration series, by URL and by template. */
  private readonly _routes = new Map<
    string,
    { readonly template: string; readonly durations: DurationsByMethod }
  >();
  private readonly _templates = new Map<string, DurationsByMethod>();
  /**
   * Every duration series, each with the durations not yet handed to the SDK. The SDK hashes a
   * histogram's attributes on every `record`, which on the request path costs several times what
   * recording a batch in one loop does; so durations are recorded in batches of
   * {@link PENDING_LIMIT}, and at the start of every collection (observable callbacks run before
   * the SDK collects its histograms), so no collection misses one.
   */
  private readonly _series: DurationSeries[] = [];
  private _pendingCount = 0;
  private readonly _observeCounts = (result: ObservableResult): void => {
    this._recordPending();
    for (const slot of this._slots())
      result.observe(slot.count, slot.attributes);
  };
  private readonly _observeLast = (result: ObservableResult): void => {
    for (const slot of this._slots())
      result.observe(slot.lastMs / 1000, slot.attributes);
  };

  private constructor(
    meterProvider: MeterProvider,
    private readonly _maxClients: number,
    private readonly _prefix: string,
    private readonly _variant: Variant,
    private readonly _clock: () => number
  ) {
    const meter = meterProvider.getMeter(PACKAGE_METER_NAME);
    this._duration = meter.createHistogram(USAGE_INSTRUMENTS.requestDuration, {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this._requests = meter.createObservableCounter(
      USAGE_INSTRUMENTS.clientRequests,
      {
        description:
          'Requests to the legacy metrics API by client (address and User-Agent) and route.',
        unit: '{request}',
      }
    );
    this._lastRequest = meter.createObservableGauge(
      USAGE_INSTRUMENTS.clientLastRequest,
      {
        description:
          "Time of a client's last request to the legacy metrics API on a route, in unix seconds.",
        unit: 's',
      }
    );
    this._other = {
      attributes: {
        'user_agent.name': OTHER_CLIENT,
        'user_agent.version': OTHER_CLIENT,
        'client.address': OTHER_CLIENT,
      },
      routes: new Map(),
    };
  }

  /**
   * The usage telemetry the options ask for, or undefined when it is off.
   * @param base the path the options are named below in errors, e.g. `legacyMetricsApi`
   * @param deprecated whether a deprecation is configured, which turns telemetry on by default
   * @throws InvalidOptionError
   */
  static fromOptions(
    options: LegacyApiUsageOptions,
    base: string,
    context: {
      prefix: string;
      variant: Variant;
      clock: () => number;
      deprecated: boolean;
    }
  ): UsageTelemetry | undefined {
    const { meterProvider, usage, maxClients } = usageOptions(base, options);
    const on =
      usage === undefined
        ? meterProvider !== undefined || context.deprecated
        : usage !== false;
    if (!on) return undefined;
    return new UsageTelemetry(
      meterProvider ?? metrics.getMeterProvider(),
      maxClients,
      context.prefix,
      context.variant,
      context.clock
    );
  }

  /**
   * Stamps each request's arrival and starts observing the counters, in `fastify` (the plugin's
   * own context, so only the API's requests pay for the stamp); stops when `fastify` closes.
   */
  attach(fastify: FastifyInstance): void {
    fastify.decorateRequest(ARRIVAL, 0);
    fastify.addHook('onRequest', stampArrival);
    this._requests.addCallback(this._observeCounts);
    this._lastRequest.addCallback(this._observeLast);
    fastify.addHook('onClose', (_instance, done) => {
      this._recordPending();
      this._requests.removeCallback(this._observeCounts);
      this._lastRequest.removeCallback(this._observeLast);
      done();
    });
  }

  /**
   * `answer` as a route handler that records each request once it has answered: a wrapper rather
   * than an onResponse hook, which would cost about as much again as the recording. The answer
   * and the record share one reading of the reader's clock; the duration is measured on the
   * monotonic clock, as a wall-clock step must not make it negative or huge.
   */
  wrap(answer: Answer): RequestListener {
    const clock = this._clock;
    return (request, reply) => {
      const nowMs = clock();
      answer(request, reply, nowMs);
      this.record(request, reply, nowMs, performance.now());
    };
  }

  /**
   * Records one answered request at `nowMs` (the reader's clock). Its duration runs from its
   * arrival (see {@link ARRIVAL}) to `endMs`: the plugin's replies are handed to Node
   * synchronously, so that is when the response was sent, as the HTTP instrumentation's
   * `response.end` marks it.
   */
  record(
    request: FastifyRequest,
    reply: FastifyReply,
    nowMs: number,
    endMs: number
  ): void {
    const socket = request.raw.socket;
    const userAgent = request.headers['user-agent'];
    const url = request.url;
    const method = request.method;
    const status = reply.statusCode;
    let memo = this._connections.get(socket);
    if (
      memo === undefined ||
      memo.url !== url ||
      memo.userAgent !== userAgent ||
      memo.method !== method ||
      memo.status !== status
    ) {
      memo = this._memo(request, status, userAgent, memo);
      this._connections.set(socket, memo);
    }
    memo.series.pending.push(
      (endMs - (request as StampedRequest)[ARRIVAL]) / 1000
    );
    if (++this._pendingCount >= PENDING_LIMIT) this._recordPending();
    const slot = memo.slot;
    slot.count++;
    slot.lastMs = nowMs;
  }

  /** Hands the pending durations to the SDK. */
  private _recordPending(): void {
    if (this._pendingCount === 0) return;
    for (const { attributes, pending } of this._series) {
      for (const duration of pending)
        this._duration.record(duration, attributes);
      pending.length = 0;
    }
    this._pendingCount = 0;
  }

  /** Looks up what `request` is recorded under; `last` is the connection's previous request. */
  private _memo(
    request: FastifyRequest,
    status: number,
    userAgent: string | undefined,
    last: ConnectionMemo | undefined
  ): ConnectionMemo {
    const { template, durations } = this._route(request);
    const client =
      last !== undefined && last.userAgent === userAgent
        ? last.client
        : this._lookUp(request, userAgent, template);
    return {
      userAgent,
      url: request.url,
      method: request.method,
      status,
      client,
      series: this._durationSeries(durations, template, request, status),
      slot: this._slot(client, template, status),
    };
  }

  /**
   * The series of `http.server.request.duration` for a route, method and status. Methods
   * (`_OTHER` beyond the standard ones), statuses and routes are few, so each is made once.
   */
  private _durationSeries(
    durations: DurationsByMethod,
    route: string,
    request: FastifyRequest,
    status: number
  ): DurationSeries {
    const method = KNOWN_METHODS.has(request.method)
      ? request.method
      : '_OTHER';
    let byStatus = durations.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      durations.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      // Keys in sorted order: the SDK sorts them on every record, and sorted input sorts fastest.
      series = {
        attributes: {
          'http.request.method': method,
          'http.response.status_code': status,
          'http.route': route,
          'url.scheme': request.protocol,
        },
        pending: [],
      };
      byStatus.set(status, series);
      this._series.push(series);
    }
    return series;
  }

  private *_slots(): Iterable<RouteSlot> {
    for (const client of this._clients.values()) yield* client.routes.values();
    yield* this._other.routes.values();
  }

  /** The route template, e.g. `/api/metrics/host_type/:host_type/:metric`, never the raw path. */
  private _route(request: FastifyRequest): {
    readonly template: string;
    readonly durations: DurationsByMethod;
  } {
    const url = request.url;
    let route = this._routes.get(url);
    if (route === undefined) {
      const template =
        this._template(url) ?? request.routeOptions.url ?? this._prefix;
      let durations = this._templates.get(template);
      if (durations === undefined) {
        durations = new Map();
        this._templates.set(template, durations);
      }
      route = { template, durations };
      if (this._routes.size < ROUTE_MEMO_LIMIT) this._routes.set(url, route);
    }
    return route;
  }

  private _template(url: string): string | undefined {
    const queryAt = url.indexOf('?');
    const path = (queryAt < 0 ? url : url.slice(0, queryAt)).slice(
      this._prefix.length
    );
    const parts = path.split('/');
    if (parts[parts.length - 1] === '') parts.pop();
    const [, root, section, name, metric, ...rest] = parts;
    if (root !== 'metrics' || rest.length > 0 || parts.includes('', 1))
      return undefined;
    const base = `${this._prefix}/metrics`;
    if (section === undefined) return base;
    if (section === 'all' || section === 'global') {
      if (metric !== undefined) return undefined;
      return name === undefined
        ? `${base}/${section}`
        : `${base}/${section}/:metric`;
    }
    if (section !== this._variant || name === undefined) return undefined;
    return metric === undefined
      ? `${base}/${section}/:${section}`
      : `${base}/${section}/:${section}/:metric`;
  }

  private _lookUp(
    request: FastifyRequest,
    userAgent: string | undefined,
    route: string
  ): Client {
    const address = request.ip;
    const key = `${address} ${userAgent ?? ''}`;
    const known = this._clients.get(key);
    if (known !== undefined) return known;
    if (this._clients.size >= this._maxClients) {
      if (!this._folded) {
        this._folded = true;
        emitLegacyWarning(
          WARNING_CODES.newClient,
          `legacy metrics API: more than ${this._maxClients} clients; ${address} ` +
            `(User-Agent ${JSON.stringify(userAgent ?? '')}) and later new clients are counted as "${OTHER_CLIENT}"`
        );
      }
      return this._other;
    }
    const { attributes, tool } = identifyClient(userAgent, address);
    const client: Client = { attributes, routes: new Map() };
    this._clients.set(key, client);
    // The package's own tools read the API once to plan or check a migration: not a poller.
    if (tool === undefined)
      emitLegacyWarning(
        WARNING_CODES.newClient,
        `legacy metrics API: first request from a new client: ${address}, ` +
          `User-Agent ${JSON.stringify(userAgent ?? '')}, ${request.method} ${route}`
      );
    return client;
  }

  private _slot(client: Client, route: string, status: number): RouteSlot {
    const key = `${status} ${route}`;
    let slot = client.routes.get(key);
    if (slot === undefined) {
      slot = {
        attributes: {
          ...client.attributes,
          'http.response.status_code': status,
          'http.route': route,
        },
        count: 0,
        lastMs: 0,
      };
      client.routes.set(key, slot);
    }
    return slot;
  }
}
