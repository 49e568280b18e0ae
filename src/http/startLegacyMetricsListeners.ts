/**
 * Starts the HTTP listeners of the messaging server's configuration file: one fastify app per
 * `[[listen.http]]` entry (or term-form listener), serving the legacy API at each handler group
 * that lists `service_api_metrics`.
 */
import type { FastifyInstance } from 'fastify';
import type { Variant } from '../attributes';
import type { LegacyApiConfig, ListenerConfig } from '../config/types';
import {
  checkOptionObject,
  invalidOption,
  isPlainObject,
  nonEmptyStringOption,
} from '../optionValidation';
import type { LegacySnapshotSource } from './LegacySnapshotSource';
import type { LegacyApiDeprecationOptions } from './deprecation';
import { resolveSharedApiOptions } from './legacyApiOptions';
import { legacyApiRoutes } from './legacyMetricsApi';
import { baseUrl, createListenerApp, listenApp } from './listen';
import {
  planListeners,
  type ListenerPlan,
  type ListenerSettings,
} from './listenerPlan';
import type {
  LegacyApiUsageOptions,
  ResolvedUsageOptions,
} from './usageOptions';

const SHARED_OPTION_KEYS = ['defaultSuccessor', 'meterProvider', 'usage'];
const CONFIG_KEYS = ['file', 'format', 'listeners'];

/** Options of {@link startLegacyMetricsListeners}. */
export interface LegacyMetricsListenersOptions
  extends
    LegacyApiUsageOptions,
    Pick<LegacyApiDeprecationOptions, 'defaultSuccessor'> {
  /**
   * The configuration file the listeners come from, named at the start of a
   * {@link ListenError}'s message (`examples/server.toml: listen.http[0]: cannot listen on …`).
   * @default the `file` of a configuration passed whole; otherwise undefined (messages start with the listener's place)
   */
  file?: string;
}

/** One handler group being served: where its API answers and to which Host. */
export interface RunningLegacyListener {
  /** The listener's base URL, e.g. `http://127.0.0.1:8088` (as {@link startLegacyMetricsServer} gives). */
  readonly url: string;
  /** The API's own URL: `url`, the prefix and `/metrics`, e.g. `http://127.0.0.1:8088/api/metrics`. */
  readonly metricsUrl: string;
  /** The handler group's prefix, without a trailing slash (`/` stays `/`). */
  readonly path: string;
  readonly variant: Variant;
  /** The Host header the group answers to; `_` for any. */
  readonly host: string;
  /** The address actually bound, e.g. `127.0.0.1`. */
  readonly address: string;
  /** The port actually bound (the system's choice when the file says 0). */
  readonly port: number;
  /** The listener's connection cap; `Infinity` for none. */
  readonly maxConnections: number;
  /** Where the handler group is defined, e.g. `listen.http[0].handlers.service_api[0]`. */
  readonly place: string;
}

/** The running listeners of a configuration. */
export interface LegacyMetricsListeners {
  /** One entry per handler group that serves `service_api_metrics`, in file order. */
  readonly listeners: readonly RunningLegacyListener[];
  /**
   * Stops every listener and closes their open connections. Idempotent. With `graceMs`, stops
   * accepting at once and lets requests on the open connections finish first, each answered
   * with `Connection: close`, for at most `graceMs` milliseconds.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Starts one HTTP listener per entry of `config` (what {@link loadLegacyApiConfig} returns, or
 * its `listeners`), serving the legacy API of `reader` at every handler group that lists
 * `service_api_metrics`: under the group's `path`, to requests whose Host header matches its
 * `host`, in its `variant`. Requests that match no group get our 404.
 *
 * `maxConnections` becomes the server's `maxConnections`: Node closes sockets beyond it at once
 * (the original's Ranch left them waiting in the accept queue). `numAcceptors` has no effect:
 * Node accepts connections in one loop. A listener without `ipAddress` binds loopback; any
 * other address gives the `LEGACY_API_EXPOSED` warning. Each listener has the request, headers
 * and keep-alive timeouts of the listener defaults (docs/http-api.md) unless its settings say otherwise.
 *
 * @returns once every listener listens
 * @throws InvalidOptionError when a setting is invalid (naming it, e.g. `listeners[1].port`),
 *   before anything is bound
 * @throws ListenError when an address cannot be bound; the listeners already started are
 *   closed first
 */
export async function startLegacyMetricsListeners(
  reader: LegacySnapshotSource,
  config: LegacyApiConfig | readonly ListenerConfig[],
  options: LegacyMetricsListenersOptions = {}
): Promise<LegacyMetricsListeners> {
  const { listeners, file } = resolveConfig(config, options);
  const { defaultSuccessor, usage } = resolveSharedApiOptions(
    'options',
    options ?? {}
  );
  return startListeners(
    reader,
    planListeners(listeners, defaultSuccessor),
    file,
    usage
  );
}

function resolveConfig(
  config: unknown,
  options: unknown
): { listeners: readonly unknown[]; file: string | undefined } {
  const given = options ?? {};
  checkOptionObject('options', given, ['file', ...SHARED_OPTION_KEYS]);
  const file = nonEmptyStringOption('options.file', given['file']);
  if (Array.isArray(config)) return { listeners: config, file };
  if (isPlainObject(config) && Array.isArray(config['listeners'])) {
    checkOptionObject('config', config, CONFIG_KEYS);
    return {
      listeners: config['listeners'] as unknown[],
      file:
        file ??
        (typeof config['file'] === 'string' ? config['file'] : undefined),
    };
  }
  return invalidOption(
    'config',
    config,
    'a configuration from loadLegacyApiConfig or an array of listener settings'
  );
}

/**
 * A standalone fastify app serving the legacy API at each handler group of `plan`, with the
 * behaviour of every listener of ours (see {@link createListenerApp}): requests that match no
 * group (another path, another Host) get our 404; unknown methods get 501.
 */
export function createLegacyMetricsApp(
  reader: LegacySnapshotSource,
  plan: Pick<ListenerPlan, 'groups'> & Partial<ListenerSettings>,
  usage: ResolvedUsageOptions
): FastifyInstance {
  const app = createListenerApp(plan);
  for (const group of plan.groups) {
    void app.register(legacyApiRoutes, {
      ...group,
      reader,
      usage,
      // fastify keeps a prefix of `/` as is, which would double the slash before `metrics`.
      prefix: group.path === '/' ? '' : group.path,
    });
  }
  return app;
}

/**
 * Starts resolved listeners one after the other; when one cannot bind, those already started
 * are closed and the {@link ListenError} is thrown.
 */
export async function startListeners(
  reader: LegacySnapshotSource,
  plans: readonly ListenerPlan[],
  file: string | undefined,
  usage: ResolvedUsageOptions
): Promise<LegacyMetricsListeners> {
  const apps: FastifyInstance[] = [];
  const running: RunningLegacyListener[] = [];
  let closing: Promise<void> | undefined;
  const close = (closeOptions: { graceMs?: number } = {}): Promise<void> =>
    (closing ??= Promise.all(
      apps.map(app => drainThenClose(app, closeOptions.graceMs ?? 0))
    ).then(() => undefined));

  try {
    // Every app is made ready first: the plugins' option errors (a deprecation's dates, usage)
    // surface as themselves, before any listener is bound.
    for (const plan of plans) {
      const app = createLegacyMetricsApp(reader, plan, usage);
      apps.push(app);
      await app.ready();
    }
    for (const [index, plan] of plans.entries()) {
      const where =
        file === undefined
          ? plan.place
          : plan.place === ''
            ? file
            : `${file}: ${plan.place}`;
      const { address, port } = await listenApp(
        apps[index]!,
        plan.address,
        plan.port,
        where
      );
      const url = baseUrl(address, port);
      for (const group of plan.groups) {
        running.push({
          url,
          metricsUrl: `${url}${group.path === '/' ? '' : group.path}/metrics`,
          path: group.path,
          variant: group.variant,
          host: group.allowedHost,
          address,
          port,
          maxConnections: plan.maxConnections,
          place: group.place,
        });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { listeners: running, close };
}

/**
 * Closes `app` after its requests in flight, for at most `graceMs`: no new connection is
 * accepted, idle keep-alive connections close at once, and every response still sent says
 * `Connection: close`, so clients finish what they sent and leave instead of being reset.
 */
async function drainThenClose(
  app: FastifyInstance,
  graceMs: number
): Promise<void> {
  const server = app.server;
  if (graceMs > 0 && server.listening) {
    server.prependListener('request', (_request, response) =>
      response.setHeader('connection', 'close')
    );
    await new Promise<void>(resolve => {
      const timer = setTimeout(resolve, graceMs);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  // Destroys whatever is still open after the grace period.
  await app.close();
}
