/**
 * Starts the HTTP listeners of the messaging server's configuration file: one fastify app per
 * `[[listen.http]]` entry (or term-form listener), serving the legacy API at each handler group
 * that lists `service_api_metrics`.
 */
import type { FastifyInstance } from 'fastify';
import type { Variant } from '../attributes';
import type { ListenerConfig } from '../config/types';
import { InvalidOptionError } from '../errors';
import { createLegacyMetricsApp, type LegacyMount } from './legacyMetricsApp';
import type { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import { baseUrl, listenApp, validatePath } from './startLegacyMetricsServer';
import type { LegacyApiDeprecationOptions } from './deprecation';
import type { LegacyApiUsageOptions } from './usageTelemetry';

/** The handler this package implements; a handler group without it serves nothing. */
export const METRICS_HANDLER = 'service_api_metrics';

/** Options of {@link startLegacyMetricsListeners}. */
export interface LegacyMetricsListenersOptions
  extends
    LegacyApiUsageOptions,
    Pick<LegacyApiDeprecationOptions, 'defaultSuccessor'> {
  /**
   * The configuration file the listeners come from, named at the start of a
   * {@link ListenError}'s message (`examples/server.toml: listen.http[0]: cannot listen on …`).
   * @default undefined (messages start with the listener's place)
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
  /** Stops every listener and closes their open connections. Idempotent. */
  close(): Promise<void>;
}

/**
 * The address a listener binds: the file's `ip_address`, or loopback of its IP version. The
 * original bound every interface by default; the API has no authentication, so this does not.
 */
export function listenerAddress(
  listener: Pick<ListenerConfig, 'ipAddress' | 'ipVersion'>
): string {
  return listener.ipAddress ?? (listener.ipVersion === 6 ? '::1' : '127.0.0.1');
}

/** Whether a handler group serves anything here: only `service_api_metrics` is implemented. */
export function servesMetrics(group: { handlers: readonly string[] }): boolean {
  return group.handlers.includes(METRICS_HANDLER);
}

/**
 * Starts one HTTP listener per entry of `listeners` (as {@link loadLegacyApiConfig} returns them),
 * serving the legacy API of `reader` at every handler group that lists `service_api_metrics`:
 * under the group's `path`, to requests whose Host header matches its `host`, in its `variant`.
 * Requests that match no group get a JSON 404.
 *
 * `maxConnections` becomes the server's `maxConnections`: Node closes sockets beyond it at once
 * (the original's Ranch left them waiting in the accept queue). `numAcceptors` has no effect:
 * Node accepts connections in one loop. A listener without `ipAddress` binds loopback; any
 * other address logs a warning through the OpenTelemetry diagnostic logger.
 *
 * @returns once every listener listens
 * @throws InvalidOptionError when `listeners` is not a list of listener settings
 * @throws ListenError when an address cannot be bound; the listeners already started are
 *   closed first
 */
export async function startLegacyMetricsListeners(
  reader: LegacyMetricsReader,
  listeners: readonly ListenerConfig[],
  options: LegacyMetricsListenersOptions = {}
): Promise<LegacyMetricsListeners> {
  validateListeners(listeners);
  const file = options.file;
  const apps: FastifyInstance[] = [];
  const running: RunningLegacyListener[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= Promise.all(apps.map(app => app.close())).then(
      () => undefined
    ));

  try {
    for (const [index, listener] of listeners.entries()) {
      const groups = listener.handlerGroups
        .filter(servesMetrics)
        .map(group => ({
          ...group,
          path: validatePath(group.path, `${group.place}.path`),
        }));
      const mounts: LegacyMount[] = groups.map(
        ({ path, variant, host, deprecation }) => ({
          path,
          variant,
          host,
          deprecation,
        })
      );
      const app = createLegacyMetricsApp(reader, mounts, {
        maxConnections: listener.maxConnections,
        defaultSuccessor: options.defaultSuccessor,
        meterProvider: options.meterProvider,
        usage: options.usage,
      });
      apps.push(app);
      // Plugin option errors surface here, apart from the bind errors below.
      await app.ready();
      const place = listener.place ?? `listeners[${index}]`;
      const where = file === undefined ? place : `${file}: ${place}`;
      const { address, port } = await listenApp(
        app,
        listenerAddress(listener),
        listener.port,
        where
      );
      const url = baseUrl(address, port);
      for (const group of groups) {
        running.push({
          url,
          metricsUrl: `${url}${group.path === '/' ? '' : group.path}/metrics`,
          path: group.path,
          variant: group.variant,
          host: group.host,
          address,
          port,
          maxConnections: listener.maxConnections,
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

function validateListeners(listeners: readonly ListenerConfig[]): void {
  if (!Array.isArray(listeners)) {
    throw new InvalidOptionError(
      `listeners must be an array of listener settings (got ${typeof listeners})`
    );
  }
  listeners.forEach((listener, index) => {
    const port = (listener as Partial<ListenerConfig> | undefined)?.port;
    if (
      typeof port !== 'number' ||
      !Number.isInteger(port) ||
      port < 0 ||
      port > 65535
    ) {
      throw new InvalidOptionError(
        `listeners[${index}].port must be an integer from 0 to 65535 (got ${JSON.stringify(port)})`
      );
    }
    const maxConnections = listener.maxConnections;
    if (
      typeof maxConnections !== 'number' ||
      !(maxConnections >= 1) ||
      !(Number.isInteger(maxConnections) || maxConnections === Infinity)
    ) {
      throw new InvalidOptionError(
        `listeners[${index}].maxConnections must be a positive integer or Infinity (got ${JSON.stringify(maxConnections)})`
      );
    }
    if (!Array.isArray(listener.handlerGroups)) {
      throw new InvalidOptionError(
        `listeners[${index}].handlerGroups must be an array (got ${typeof listener.handlerGroups})`
      );
    }
  });
}
