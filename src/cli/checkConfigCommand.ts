import type {
  HandlerGroupConfig,
  LegacyApiConfig,
  ListenerConfig,
} from '../config/types';
import {
  loadLegacyApiConfig,
  parseLegacyApiConfig,
} from '../config/loadLegacyApiConfig';
import { ConfigError } from '../errors';
import {
  listenerAddress,
  METRICS_HANDLER,
  servesMetrics,
} from '../http/listenerPlan';
import { normalizePrefix } from '../optionValidation';
import { isLoopbackAddress } from '../hostNames';
import { STDIN_NAME, type CliCommand, printUsage } from './cliCommand';
import { describeDeprecation } from './describeDeprecation';
import { parseCommandLine } from './parseCommandLine';

/** `check-config --help`. */
const CHECK_CONFIG_USAGE = `Usage: legacy-metrics-api check-config FILE

Validates the legacy metrics API listeners of a messaging server configuration FILE (TOML or
the older Erlang-term form, at most 4 MiB; - reads standard input) and prints each listener
with the settings in effect. Exits 0 when the file is valid and a listener serves the legacy metrics API, 2 with
a one-line message naming the place at fault when it is not.

Options:
  -h, --help     Show this help`;

/** `legacy-metrics-api check-config FILE`: validates FILE and prints its listeners. */
export const checkConfigCommand: CliCommand = async (args, io) => {
  const { values, positional: file } = parseCommandLine('check-config', args, {
    options: {},
    positional: { name: 'FILE', required: ' (- for standard input)' },
  });
  if (values.help === true) return printUsage(io.out, CHECK_CONFIG_USAGE);
  const config =
    file === '-'
      ? parseLegacyApiConfig(await io.readStdin(), STDIN_NAME)
      : await loadLegacyApiConfig(file!);
  requireLegacyApiListener(config);
  for (const line of describeConfig(config)) io.out(line);
  return 0;
};

/** Host names that answer as one, as the legacy API's Host routing treats them. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const FORMAT_NAMES = { toml: 'TOML', term: 'Erlang-term' } as const;
/** Width of the setting names, so the values line up. */
const NAME_WIDTH = 20;

/**
 * Throws unless a listener of `config` serves the legacy metrics API: `check-config` and `demo`
 * refuse such a file alike, since a server started on it would serve nothing.
 * @throws ConfigError naming the file
 */
export function requireLegacyApiListener(config: LegacyApiConfig): void {
  if (
    !config.listeners.some(listener =>
      listener.handlerGroups.some(servesMetrics)
    )
  ) {
    throw new ConfigError(
      config.file,
      '',
      `found no listener serving the legacy metrics API, expected an HTTP listener with a service_api handler group listing ${METRICS_HANDLER}`
    );
  }
}

/**
 * What `legacy-metrics-api check-config` prints for a valid configuration: a summary line, then
 * every listener with the settings in effect, defaults filled in.
 */
export function describeConfig(config: LegacyApiConfig): string[] {
  const lines = [
    `${config.file}: valid ${FORMAT_NAMES[config.format]} configuration: ${summary(config)}`,
  ];
  for (const listener of config.listeners)
    lines.push(...describeListener(listener));
  return lines;
}

function summary(config: LegacyApiConfig): string {
  const listeners = config.listeners.length;
  if (listeners === 0) return 'no listener serves the legacy metrics API';
  const groups = config.listeners
    .flatMap(listener => listener.handlerGroups)
    .filter(servesMetrics).length;
  return groups === 0
    ? `${plural(listeners, 'listener')}, but no handler group lists ${METRICS_HANDLER}: nothing is served`
    : `${plural(listeners, 'listener')}, ${plural(groups, 'handler group')} serving the legacy metrics API`;
}

function describeListener(listener: ListenerConfig): string[] {
  return [
    `listener (${listener.place})`,
    setting(1, 'address', describeAddress(listener)),
    setting(
      1,
      'port',
      listener.port === 0
        ? '0 (the system picks a free port)'
        : String(listener.port)
    ),
    setting(1, 'num_acceptors', `${listener.numAcceptors} (no effect on Node)`),
    setting(1, 'max_connections', connectionCap(listener.maxConnections)),
    ...listener.handlerGroups.flatMap(describeGroup),
  ];
}

/** A connection cap as the configuration writes it: `infinity` for none. */
export function connectionCap(maxConnections: number): string {
  return maxConnections === Infinity ? 'infinity' : String(maxConnections);
}

function describeAddress(listener: ListenerConfig): string {
  const address = listenerAddress(listener);
  if (listener.ipAddress === undefined) return `${address} (loopback default)`;
  return isLoopbackAddress(address)
    ? address
    : `${address} (reachable from other machines; the API has no authentication)`;
}

function describeGroup(group: HandlerGroupConfig): string[] {
  const prefix = normalizePrefix(group.path);
  const api = `${prefix === '/' ? '' : prefix}/metrics`;
  return [
    `  handler group (${group.place})`,
    setting(
      2,
      'prefix',
      servesMetrics(group) ? `${group.path} (the API at ${api})` : group.path
    ),
    setting(2, 'Host', describeHost(group.host)),
    setting(
      2,
      'variant',
      `${group.variant} (${api}/${group.variant}/:${group.variant})`
    ),
    setting(2, 'handlers', describeHandlers(group.handlers)),
    ...describeDeprecation(group.deprecation, '    ', NAME_WIDTH - 4),
  ];
}

function describeHost(host: string): string {
  if (host === '_') return '_ (any host)';
  const lower = host.toLowerCase();
  if (!LOOPBACK_HOSTS.includes(lower)) return host;
  return `${host} (also ${LOOPBACK_HOSTS.filter(name => name !== lower).join(' and ')})`;
}

function describeHandlers(handlers: readonly string[]): string {
  const list = handlers.join(', ');
  const unserved = handlers.filter(name => name !== METRICS_HANDLER);
  if (!handlers.includes(METRICS_HANDLER))
    return `${list} (serves nothing: only ${METRICS_HANDLER} is implemented)`;
  return unserved.length === 0
    ? list
    : `${list} (${unserved.join(', ')} not implemented)`;
}

function setting(depth: number, name: string, value: string): string {
  return `${'  '.repeat(depth)}${name.padEnd(NAME_WIDTH - 2 * depth)}${value}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
