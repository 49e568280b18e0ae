/**
 * The clients of the legacy API that usage telemetry tells apart (address and User-Agent), each
 * with a slot per route template and response status, bounded so that a scan cannot grow memory:
 * beyond `maxClients`, new clients are counted together as `other`.
 */
import type { Attributes } from '@opentelemetry/api';
import { getOrMake } from '../getOrMake';
import { identifyClient, OTHER_CLIENT } from './clientIdentity';
import { NewClientWarnings } from './newClientWarnings';

/** One client on one route with one response status: its attributes, prepared once, and what it did. */
export interface RouteSlot {
  readonly attributes: Attributes;
  /** Requests so far: the counter is observed from it, so a request costs an increment. */
  count: number;
  lastMs: number;
}

export interface Client {
  readonly attributes: Attributes;
  /** By response status and route template. */
  readonly routes: Map<string, RouteSlot>;
}

/** A client's request, as the table needs it when the client may be new. */
export interface ClientRequest {
  readonly address: string;
  readonly userAgent: string | undefined;
  readonly method: string;
  /** The route template, for the new client's warning. */
  readonly route: string;
}

export class ClientTable {
  private readonly _clients = new Map<string, Client>();
  private readonly _other: Client = {
    attributes: {
      'user_agent.name': OTHER_CLIENT,
      'user_agent.version': OTHER_CLIENT,
      'client.address': OTHER_CLIENT,
    },
    routes: new Map(),
  };
  private _folded = false;
  /** The warnings about new clients, whose minute the telemetry closes on every request. */
  readonly warnings: NewClientWarnings;

  /** `logNewClients: false` turns the new clients' warnings off. */
  constructor(
    private readonly _maxClients: number,
    logNewClients: boolean
  ) {
    this.warnings = new NewClientWarnings(logNewClients);
  }

  /**
   * The client of `request` at `nowMs` (the reader's clock), added when new with a warning
   * (except the package's own tools, which read the API once to plan or check a migration;
   * bounded per minute, see {@link NewClientWarnings}), or `other` when the table is full.
   */
  client(request: ClientRequest, nowMs: number): Client {
    const { address, userAgent } = request;
    const key = `${address} ${userAgent ?? ''}`;
    const known = this._clients.get(key);
    if (known !== undefined) return known;
    if (this._clients.size >= this._maxClients) {
      if (!this._folded) {
        this._folded = true;
        this.warnings.tableFull(
          `legacy metrics API: more than ${this._maxClients} clients; ${address} ` +
            `(User-Agent ${JSON.stringify(userAgent ?? '')}) and later new clients are counted as "${OTHER_CLIENT}"`
        );
      }
      return this._other;
    }
    const { attributes, tool } = identifyClient(userAgent, address);
    const client: Client = { attributes, routes: new Map() };
    this._clients.set(key, client);
    if (tool === undefined)
      this.warnings.newClient(
        nowMs,
        `${address}, User-Agent ${JSON.stringify(userAgent ?? '')}, ${request.method} ${request.route}`
      );
    return client;
  }

  /** The slot of `client` on `route` with `status`. */
  slot(client: Client, route: string, status: number): RouteSlot {
    return getOrMake(client.routes, `${status} ${route}`, () => ({
      attributes: {
        ...client.attributes,
        'http.response.status_code': status,
        'http.route': route,
      },
      count: 0,
      lastMs: 0,
    }));
  }

  /** Every slot of every client. */
  *slots(): Iterable<RouteSlot> {
    for (const client of this._clients.values()) yield* client.routes.values();
    yield* this._other.routes.values();
  }
}
