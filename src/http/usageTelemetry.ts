/**
 * Who still polls the legacy API: the plugin's own OpenTelemetry instruments (the HTTP semantic
 * conventions' request duration, requests per client and response status, each client's last
 * request time) and a one-line warning at each new client (at most a few a minute, then a
 * summary), except the package's own tools.
 * Attribute sets are prepared once per route, status and client, and the client table is
 * bounded, so a scan cannot grow memory.
 */
import { metrics, type MeterProvider } from '@opentelemetry/api';
import type { Variant } from '../attributes';
import { getOrMake } from '../getOrMake';
import { routeTemplate, type LegacyRoute } from '../route/legacyRoute';
import { ClientTable, type Client, type RouteSlot } from './clientTable';
import type { RequestReader } from './httpAdapter';
import { UsageInstruments, type DurationSeries } from './usageInstruments';
import type { ResolvedUsageOptions } from './usageOptions';

/** Methods the HTTP semantic conventions name; every other method is `_OTHER`. */
const KNOWN_METHODS = new Set(
  'CONNECT DELETE GET HEAD OPTIONS PATCH POST PUT TRACE QUERY'.split(' ')
);

/**
 * What the last request on a connection was recorded under. Keep-alive pollers repeat the same
 * request, so a request that matches costs a few comparisons instead of the lookups behind them.
 */
interface ConnectionMemo {
  readonly userAgent: string | undefined;
  readonly url: string | undefined;
  readonly method: string | undefined;
  readonly status: number;
  readonly client: Client;
  readonly series: DurationSeries;
  readonly slot: RouteSlot;
}

/** Where the API is mounted and which variant it serves, for route templates. */
export interface UsageContext {
  readonly prefix: string;
  readonly variant: Variant;
}

/**
 * The usage telemetry of one plugin registration or request listener. Whether there is any is
 * decided when the options are read (see {@link UsageTelemetry.create}); when there is none,
 * nothing is installed.
 */
export class UsageTelemetry {
  private readonly _clients: ClientTable;
  private readonly _instruments: UsageInstruments;
  /** The last request of each connection (its socket), see {@link ConnectionMemo}. */
  private readonly _connections = new WeakMap<object, ConnectionMemo>();
  /** Duration series by route template, method and status: each is made once. */
  private readonly _durations = new Map<string, DurationSeries>();

  private constructor(
    meterProvider: MeterProvider,
    { maxClients, logNewClients }: ResolvedUsageOptions,
    private readonly _context: UsageContext
  ) {
    this._clients = new ClientTable(maxClients, logNewClients);
    this._instruments = new UsageInstruments(meterProvider, this._clients);
  }

  /**
   * The usage telemetry resolved options ask for, or undefined when it is off.
   * @param deprecated whether a deprecation is configured, which turns telemetry on by default
   */
  static create(
    options: ResolvedUsageOptions,
    context: UsageContext,
    deprecated: boolean
  ): UsageTelemetry | undefined {
    const { meterProvider, usage } = options;
    const on =
      usage === undefined
        ? meterProvider !== undefined || deprecated
        : usage !== false;
    if (!on) return undefined;
    return new UsageTelemetry(
      meterProvider ?? metrics.getMeterProvider(),
      options,
      context
    );
  }

  /** Starts observing the counters. */
  start(): void {
    this._instruments.start();
  }

  /** Records what is pending, warns of the new clients not warned about yet, and stops observing. */
  stop(): void {
    this._clients.warnings.flush();
    this._instruments.stop();
  }

  /**
   * Records one answered request at `nowMs` (the reader's clock), with its `status`, its parsed
   * `route` and its duration in seconds.
   */
  record<Req>(
    request: Req,
    reader: RequestReader<Req>,
    status: number,
    route: LegacyRoute,
    nowMs: number,
    seconds: number
  ): void {
    const raw = reader.raw(request);
    const { socket, url, method } = raw;
    const userAgent = raw.headers['user-agent'];
    this._clients.warnings.tick(nowMs);
    let memo = this._connections.get(socket);
    if (
      memo === undefined ||
      memo.url !== url ||
      memo.userAgent !== userAgent ||
      memo.method !== method ||
      memo.status !== status
    ) {
      const { prefix, variant } = this._context;
      const template =
        routeTemplate(route, prefix, variant) ?? `${prefix}/metrics/*`;
      const client =
        memo !== undefined && memo.userAgent === userAgent
          ? memo.client
          : this._clients.client(
              {
                address: reader.clientAddress(request),
                userAgent,
                method: method ?? 'GET',
                route: template,
              },
              nowMs
            );
      memo = {
        userAgent,
        url,
        method,
        status,
        client,
        series: this._series(template, method ?? 'GET', status, () =>
          reader.scheme(request)
        ),
        slot: this._clients.slot(client, template, status),
      };
      this._connections.set(socket, memo);
    }
    this._instruments.addDuration(memo.series, seconds);
    const slot = memo.slot;
    slot.count++;
    slot.lastMs = nowMs;
  }

  /**
   * The series of `http.server.request.duration` for a route, method and status. Methods
   * (`_OTHER` beyond the standard ones), statuses and routes are few, so each is made once.
   */
  private _series(
    route: string,
    requestMethod: string,
    status: number,
    scheme: () => string
  ): DurationSeries {
    const method = KNOWN_METHODS.has(requestMethod) ? requestMethod : '_OTHER';
    // Keys in sorted order: the SDK sorts them on every record, and sorted input sorts fastest.
    return getOrMake(this._durations, `${method} ${status} ${route}`, () =>
      this._instruments.series({
        'http.request.method': method,
        'http.response.status_code': status,
        'http.route': route,
        'url.scheme': scheme(),
      })
    );
  }
}
