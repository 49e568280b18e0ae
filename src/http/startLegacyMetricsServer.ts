import { VARIANTS, type Variant } from '../attributes';
import {
  checkOptionObject,
  EXPECTED_OPTION,
  invalidOption,
  nonEmptyStringOption,
  oneOfOption,
  portOption,
  prefixOption,
} from '../optionValidation';
import { isLoopbackAddress, LOOPBACK_HOST } from '../hostNames';
import type { LegacySnapshotSource } from './LegacySnapshotSource';
import {
  deprecationOption,
  type LegacyApiDeprecationOptions,
} from './deprecation';
import { resolveSharedApiOptions } from './legacyApiOptions';
import { ANY_HOST } from './hostConstraint';
import {
  maxConnectionsOption,
  resolveTimeouts,
  TIMEOUT_KEYS,
} from './listenerPlan';
import type { ListenerTimeouts } from '../config/types';
import { startListeners } from './startLegacyMetricsListeners';
import type { LegacyApiUsageOptions } from './usageOptions';

/** Options of {@link startLegacyMetricsServer}. */
export interface LegacyMetricsServerOptions
  extends ListenerTimeouts, LegacyApiDeprecationOptions, LegacyApiUsageOptions {
  /** The TCP port; 0 picks a free one. */
  port: number;
  /**
   * The address to bind. The API has no authentication, so it binds loopback unless told otherwise.
   * @default '127.0.0.1'
   */
  address?: string;
  /**
   * The Host header requests must name (port ignored, case-insensitive; every loopback name and
   * address counts as one); `_` answers any Host. Other requests get the same 404 as an unknown
   * path. Bound to loopback, the server answers only loopback names, so that a web page cannot
   * read the metrics through DNS rebinding.
   * @default 'localhost' when `address` is loopback, else '_'
   */
  allowedHost?: string;
  /** @default '/api' */
  path?: string;
  /** @default 'host_type' */
  variant?: Variant;
  /**
   * Connections beyond this are closed at once.
   * @default Infinity
   */
  maxConnections?: number;
}

/** A running listener. */
export interface LegacyMetricsServer {
  /** The listener's base URL, e.g. `http://127.0.0.1:8088`. */
  readonly url: string;
  /** The address actually bound, e.g. `127.0.0.1`. */
  readonly address: string;
  /** The port actually bound (the system's choice for port 0). */
  readonly port: number;
  /** Stops listening and closes open connections. Idempotent. */
  close(): Promise<void>;
}

/** The defaults of {@link LegacyMetricsServerOptions}. */
export const DEFAULT_SERVER_OPTIONS = Object.freeze({
  address: '127.0.0.1',
  path: '/api',
  variant: 'host_type' as Variant,
  maxConnections: Infinity,
});

const SERVER_KEYS = [
  'port',
  'address',
  'allowedHost',
  'path',
  'variant',
  'maxConnections',
  ...TIMEOUT_KEYS,
  'deprecation',
  'defaultSuccessor',
  'meterProvider',
  'usage',
];

/**
 * Starts a standalone HTTP listener serving the legacy API of `reader` at `<path>/metrics`:
 * one listener with one handler group, started the same way as {@link startLegacyMetricsListeners}.
 * Resolves once it listens.
 * @throws InvalidOptionError when an option is invalid, before anything is bound
 * @throws ListenError when the address cannot be bound
 */
export async function startLegacyMetricsServer(
  reader: LegacySnapshotSource,
  options: LegacyMetricsServerOptions
): Promise<LegacyMetricsServer> {
  checkOptionObject('', options, SERVER_KEYS);
  const port = portOption('port', options.port);
  if (port === undefined)
    invalidOption('port', undefined, EXPECTED_OPTION.port);
  const address = nonEmptyStringOption(
    'address',
    options.address,
    DEFAULT_SERVER_OPTIONS.address
  );
  const allowedHost = nonEmptyStringOption(
    'allowedHost',
    options.allowedHost,
    isLoopbackAddress(address) ? LOOPBACK_HOST : ANY_HOST
  );
  const maxConnections = maxConnectionsOption(
    'maxConnections',
    options.maxConnections,
    DEFAULT_SERVER_OPTIONS.maxConnections
  );
  const path = prefixOption('path', options.path, DEFAULT_SERVER_OPTIONS.path);
  const variant = oneOfOption(
    'variant',
    options.variant,
    VARIANTS,
    DEFAULT_SERVER_OPTIONS.variant
  );
  const { defaultSuccessor, usage } = resolveSharedApiOptions('', options);
  const group = {
    path,
    variant,
    allowedHost,
    place: '',
    deprecation: deprecationOption(
      'deprecation',
      options.deprecation,
      defaultSuccessor
    ),
  };
  const timeouts = resolveTimeouts('', options as Record<string, unknown>);
  const started = await startListeners(
    reader,
    [{ address, port, maxConnections, timeouts, groups: [group], place: '' }],
    undefined,
    usage
  );
  const listener = started.listeners[0]!;
  return {
    url: listener.url,
    address: listener.address,
    port: listener.port,
    close: started.close,
  };
}
