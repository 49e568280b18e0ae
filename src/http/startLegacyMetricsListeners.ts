/**
 * Starts the HTTP listeners of the messaging server's configuration file: one fastify app per
 * `[[listen.http]]` entry (or term-form listener), serving the legacy API at each handler group
 * that lists `service_api_metrics`.
 */
import type { FastifyInstance } from 'fastify';
import { isIP } from 'node:net';
import { VARIANTS, type Variant } from '../attributes';
import {
  CONFIG_DEFAULTS,
  type LegacyApiConfig,
  type ListenerConfig,
} from '../config/types';
import {
  checkOptionObject,
  EXPECTED_OPTION,
  invalidOption,
  isPlainObject,
  nonEmptyStringOption,
  oneOfOption,
  optionPath,
  portOption,
  prefixOption,
} from '../optionValidation';
import type { LegacySnapshotSource } from './LegacySnapshotSource';
import {
  checkSharedApiOptions,
  createLegacyMetricsApp,
  type SharedApiOptions,
} from './legacyMetricsApp';
import {
  baseUrl,
  listenApp,
  resolveTimeouts,
  TIMEOUT_KEYS,
  type ListenerSettings,
} from './listen';
import type { DeprecationOptions } from '../config/deprecationOptions';
import {
  deprecationOption,
  type LegacyApiDeprecationOptions,
} from './deprecation';
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

/** One handler group to serve, validated. */
export interface GroupPlan {
  readonly path: string;
  readonly variant: Variant;
  readonly host: string;
  readonly place: string;
  /** How the group announces its end; validated when its plugin is registered. */
  readonly deprecation?: DeprecationOptions;
}

/** One listener to start, validated: the common ground of the server and the configured listeners. */
export interface ListenerPlan extends ListenerSettings {
  readonly address: string;
  readonly port: number;
  readonly groups: readonly GroupPlan[];
  /** Where the listener is defined, at the start of a ListenError's message; '' for none. */
  readonly place: string;
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

const LISTENER_KEYS = [
  'port',
  'ipAddress',
  'ipVersion',
  'numAcceptors',
  'maxConnections',
  'handlerGroups',
  'place',
  ...TIMEOUT_KEYS,
];
const GROUP_KEYS = [
  'host',
  'path',
  'variant',
  'handlers',
  'place',
  'deprecation',
];
const SHARED_OPTION_KEYS = ['defaultSuccessor', 'meterProvider', 'usage'];
const CONFIG_KEYS = ['file', 'format', 'listeners'];

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
 * and keep-alive timeouts of {@link DEFAULT_LISTENER_TIMEOUTS} unless its settings say otherwise.
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
  const { defaultSuccessor, meterProvider, usage } = options ?? {};
  const shared = { defaultSuccessor, meterProvider, usage };
  checkSharedApiOptions('options', shared);
  return startListeners(reader, planListeners(listeners), file, shared);
}

function resolveConfig(
  config: unknown,
  options: unknown
): { listeners: readonly unknown[]; file: string | undefined } {
  checkOptionObject('options', options ?? {}, ['file', ...SHARED_OPTION_KEYS]);
  const file = nonEmptyStringOption(
    'options.file',
    (options as LegacyMetricsListenersOptions | undefined)?.file
  );
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

/** Validates every listener, so that an invalid one is reported before any is bound. */
function planListeners(listeners: readonly unknown[]): ListenerPlan[] {
  return listeners.map((listener, index) => {
    const path = optionPath('listeners', index);
    checkOptionObject(path, listener, LISTENER_KEYS);
    const port = portOption(optionPath(path, 'port'), listener['port']);
    if (port === undefined)
      invalidOption(optionPath(path, 'port'), undefined, EXPECTED_OPTION.port);
    const ipAddress = listener['ipAddress'];
    if (
      ipAddress !== undefined &&
      (typeof ipAddress !== 'string' || isIP(ipAddress) === 0)
    ) {
      invalidOption(
        optionPath(path, 'ipAddress'),
        ipAddress,
        'an IPv4 or IPv6 address'
      );
    }
    const ipVersion = oneOfOption(
      optionPath(path, 'ipVersion'),
      listener['ipVersion'],
      [4, 6] as const,
      ipAddress === undefined ? 4 : (isIP(ipAddress) as 4 | 6)
    );
    const maxConnections =
      listener['maxConnections'] ?? CONFIG_DEFAULTS.maxConnections;
    if (
      typeof maxConnections !== 'number' ||
      !(maxConnections >= 1) ||
      !(Number.isSafeInteger(maxConnections) || maxConnections === Infinity)
    ) {
      invalidOption(
        optionPath(path, 'maxConnections'),
        maxConnections,
        'a positive integer or Infinity'
      );
    }
    const groups = listener['handlerGroups'];
    if (!Array.isArray(groups))
      invalidOption(optionPath(path, 'handlerGroups'), groups, 'an array');
    const place = listener['place'];
    return {
      address: listenerAddress({ ipAddress, ipVersion }),
      port,
      maxConnections,
      timeouts: resolveTimeouts(path, listener),
      groups: planGroups(groups, optionPath(path, 'handlerGroups')),
      place: typeof place === 'string' ? place : path,
    };
  });
}

function planGroups(groups: readonly unknown[], base: string): GroupPlan[] {
  const plans: GroupPlan[] = [];
  groups.forEach((group, index) => {
    const path = optionPath(base, index);
    checkOptionObject(path, group, GROUP_KEYS);
    const handlers = group['handlers'];
    if (
      !Array.isArray(handlers) ||
      !handlers.every(name => typeof name === 'string')
    )
      invalidOption(
        optionPath(path, 'handlers'),
        handlers,
        'an array of handler names'
      );
    const plan = {
      path: prefixOption(optionPath(path, 'path'), group['path']),
      variant: oneOfOption(
        optionPath(path, 'variant'),
        group['variant'],
        VARIANTS,
        CONFIG_DEFAULTS.variant
      ),
      host: nonEmptyStringOption(optionPath(path, 'host'), group['host']) ?? '',
      place: typeof group['place'] === 'string' ? group['place'] : path,
      deprecation: group['deprecation'] as DeprecationOptions | undefined,
    };
    if (plan.deprecation !== undefined)
      deprecationOption(optionPath(path, 'deprecation'), plan.deprecation);
    if (plan.host === '')
      invalidOption(
        optionPath(path, 'host'),
        undefined,
        'a non-empty string ("_" for any host)'
      );
    if (servesMetrics({ handlers: handlers as string[] })) plans.push(plan);
  });
  return plans;
}

/**
 * Starts validated listeners one after the other; when one cannot bind, those already started
 * are closed and the {@link ListenError} is thrown.
 */
export async function startListeners(
  reader: LegacySnapshotSource,
  plans: readonly ListenerPlan[],
  file: string | undefined,
  shared: SharedApiOptions = {}
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
      const app = createLegacyMetricsApp(reader, plan.groups, plan, shared);
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
          host: group.host,
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
