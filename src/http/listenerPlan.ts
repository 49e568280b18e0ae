/**
 * The listeners of a configuration, validated and resolved before anything is bound: each
 * listener's address, port, connection cap and timeouts, and the handler groups it serves, in
 * the one resolved type of each that the standalone server builds too.
 */
import { isIP } from 'node:net';
import { VARIANTS } from '../attributes';
import { CONFIG_DEFAULTS, type ListenerConfig } from '../config/types';
import {
  checkOptionObject,
  EXPECTED_OPTION,
  invalidOption,
  nonEmptyStringOption,
  oneOfOption,
  optionPath,
  portOption,
  prefixOption,
} from '../optionValidation';
import { deprecationOption } from './deprecation';
import type { ResolvedLegacyApi } from './legacyApiOptions';
import {
  maxConnectionsOption,
  resolveTimeouts,
  TIMEOUT_KEYS,
  type ListenerSettings,
} from './listenerSettings';

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
    const groups = listener['handlerGroups'];
    if (!Array.isArray(groups))
      invalidOption(optionPath(path, 'handlerGroups'), groups, 'an array');
    const place = listener['place'];
    return {
      address: listenerAddress({ ipAddress, ipVersion }),
      port,
      maxConnections: maxConnectionsOption(
        optionPath(path, 'maxConnections'),
        listener['maxConnections'],
        CONFIG_DEFAULTS.maxConnections
      ),
      timeouts: resolveTimeouts(path, listener),
      groups: planGroups(
        groups,
        optionPath(path, 'handlerGroups'),
        defaultSuccessor
      ),
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
    const plan: GroupPlan = {
      path: prefixOption(optionPath(path, 'path'), group['path']),
      variant: oneOfOption(
        optionPath(path, 'variant'),
        group['variant'],
        VARIANTS,
        CONFIG_DEFAULTS.variant
      ),
      allowedHost:
        nonEmptyStringOption(optionPath(path, 'host'), group['host']) ?? '',
      place: typeof group['place'] === 'string' ? group['place'] : path,
      deprecation: deprecationOption(
        optionPath(path, 'deprecation'),
        group['deprecation'],
        defaultSuccessor
      ),
    };
    if (plan.allowedHost === '')
      invalidOption(
        optionPath(path, 'host'),
        undefined,
        'a non-empty string ("_" for any host)'
      );
    if (servesMetrics({ handlers: handlers as string[] })) plans.push(plan);
  });
  return plans;
}
