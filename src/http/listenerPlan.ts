/**
 * Listeners resolved before anything is bound: each listener's address, port, connection cap
 * and timeouts, and the handler groups it serves, in the one resolved type of each that the
 * configured listeners and the standalone server share. The checks of a listener's timeouts
 * and connection cap serve the Prometheus endpoint's listener too.
 */
import { isIP } from 'node:net';
import { VARIANTS } from '../attributes';
import { EXPECTED } from '../config/listenerRules';
import {
  CONFIG_DEFAULTS,
  DEFAULT_LISTENER_TIMEOUTS,
  type ListenerConfig,
  type ListenerTimeouts,
} from '../config/types';
import {
  checkOptionObject,
  EXPECTED_OPTION,
  invalidOption,
  nonEmptyStringOption,
  oneOfOption,
  optionPath,
  portOption,
  positiveIntegerOption,
  prefixOption,
} from '../optionValidation';
import { deprecationOption } from './deprecation';
import type { ResolvedLegacyApi } from './legacyApiOptions';

/** The handler this package implements; a handler group without it serves nothing. */
export const METRICS_HANDLER = 'service_api_metrics';

/** One handler group to serve, resolved: a mount of the API and where it is defined. */
export interface GroupPlan extends Pick<
  ResolvedLegacyApi,
  'variant' | 'allowedHost' | 'deprecation'
> {
  /** The URL prefix, e.g. `/api`, normalised (no trailing slash; `/` stays `/`). */
  readonly path: string;
  readonly place: string;
}

/** One listener to start, resolved: the common ground of the server and the configured listeners. */
export interface ListenerPlan extends ListenerSettings {
  readonly address: string;
  readonly port: number;
  readonly groups: readonly GroupPlan[];
  /** Where the listener is defined, at the start of a ListenError's message; '' for none. */
  readonly place: string;
}

/** How one listener behaves, once validated. */
export interface ListenerSettings {
  /** Connections beyond this are closed at once; `Infinity` for no cap. */
  readonly maxConnections: number;
  readonly timeouts: Required<ListenerTimeouts>;
}

/** The keys of {@link ListenerTimeouts}, for option checks. */
export const TIMEOUT_KEYS = Object.freeze(
  Object.keys(DEFAULT_LISTENER_TIMEOUTS)
) as readonly (keyof ListenerTimeouts)[];

/** Validates timeouts given at `path` (each at `path.requestTimeout` …) and applies the defaults. */
export function resolveTimeouts(
  path: string,
  given: Record<string, unknown>
): Required<ListenerTimeouts> {
  const at = (key: string): string => optionPath(path, key);
  const timeouts = Object.fromEntries(
    TIMEOUT_KEYS.map(key => [
      key,
      positiveIntegerOption(
        at(key),
        given[key],
        DEFAULT_LISTENER_TIMEOUTS[key]
      ),
    ])
  ) as Required<ListenerTimeouts>;
  if (timeouts.headersTimeout > timeouts.requestTimeout) {
    // Node refuses a headers timeout beyond the request timeout.
    const explicit = given['headersTimeout'] !== undefined;
    invalidOption(
      at(explicit ? 'headersTimeout' : 'requestTimeout'),
      explicit ? timeouts.headersTimeout : timeouts.requestTimeout,
      explicit
        ? `at most requestTimeout (${timeouts.requestTimeout})`
        : `at least headersTimeout (${timeouts.headersTimeout})`
    );
  }
  return timeouts;
}

/** A connection cap: a positive integer or `Infinity`, or `fallback` when left out. */
export function maxConnectionsOption(
  path: string,
  value: unknown,
  fallback: number
): number {
  const maxConnections = value ?? fallback;
  if (
    typeof maxConnections !== 'number' ||
    !(maxConnections >= 1) ||
    !(Number.isSafeInteger(maxConnections) || maxConnections === Infinity)
  )
    invalidOption(path, maxConnections, 'a positive integer or Infinity');
  return maxConnections;
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

/**
 * Resolves every listener, so that an invalid one is reported before any is bound;
 * `defaultSuccessor` is the successor of a deprecation that names none.
 */
export function planListeners(
  listeners: readonly unknown[],
  defaultSuccessor: string | undefined
): ListenerPlan[] {
  return listeners.map((listener, index) => {
    const path = optionPath('listeners', index);
    const at = (key: string): string => optionPath(path, key);
    checkOptionObject(path, listener, LISTENER_KEYS);
    const port = portOption(at('port'), listener['port']);
    if (port === undefined)
      invalidOption(at('port'), undefined, EXPECTED_OPTION.port);
    const ipAddress = listener['ipAddress'];
    if (
      ipAddress !== undefined &&
      (typeof ipAddress !== 'string' || isIP(ipAddress) === 0)
    ) {
      invalidOption(at('ipAddress'), ipAddress, 'an IPv4 or IPv6 address');
    }
    const ipVersion = oneOfOption(
      at('ipVersion'),
      listener['ipVersion'],
      [4, 6] as const,
      ipAddress === undefined ? 4 : (isIP(ipAddress) as 4 | 6)
    );
    const groups = listener['handlerGroups'];
    if (!Array.isArray(groups))
      invalidOption(at('handlerGroups'), groups, 'an array');
    const place = listener['place'];
    return {
      address: listenerAddress({ ipAddress, ipVersion }),
      port,
      maxConnections: maxConnectionsOption(
        at('maxConnections'),
        listener['maxConnections'],
        CONFIG_DEFAULTS.maxConnections
      ),
      timeouts: resolveTimeouts(path, listener),
      groups: planGroups(groups, at('handlerGroups'), defaultSuccessor),
      place: typeof place === 'string' ? place : path,
    };
  });
}

function planGroups(
  groups: readonly unknown[],
  base: string,
  defaultSuccessor: string | undefined
): GroupPlan[] {
  const plans: GroupPlan[] = [];
  groups.forEach((group, index) => {
    const path = optionPath(base, index);
    const at = (key: string): string => optionPath(path, key);
    checkOptionObject(path, group, GROUP_KEYS);
    const handlers = group['handlers'];
    if (
      !Array.isArray(handlers) ||
      !handlers.every(name => typeof name === 'string')
    )
      invalidOption(at('handlers'), handlers, 'an array of handler names');
    const plan: GroupPlan = {
      path: prefixOption(at('path'), group['path']),
      variant: oneOfOption(
        at('variant'),
        group['variant'],
        VARIANTS,
        CONFIG_DEFAULTS.variant
      ),
      allowedHost: nonEmptyStringOption(at('host'), group['host']) ?? '',
      place: typeof group['place'] === 'string' ? group['place'] : path,
      deprecation: deprecationOption(
        at('deprecation'),
        group['deprecation'],
        defaultSuccessor
      ),
    };
    if (plan.allowedHost === '')
      invalidOption(at('host'), undefined, EXPECTED.host);
    if (servesMetrics({ handlers: handlers as string[] })) plans.push(plan);
  });
  return plans;
}
