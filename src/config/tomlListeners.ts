/**
 * Reads our listeners from the TOML configuration form: the `[[listen.http]]` entries
 * that have `[[listen.http.handlers.service_api]]` groups. Everything else in the file
 * is left to the messaging server.
 */
import { isIP } from 'node:net';
import type { TomlTable, TomlValue } from 'smol-toml' with {
  'resolution-mode': 'import',
};
import { VARIANTS } from '../attributes';
import { ConfigError } from '../errors';
import { expectedOneOf } from '../nameSuggestion';
import { shorten } from '../optionValidation';
import { readTomlDeprecation } from './tomlDeprecation';
import { isTable, parseToml, render } from './tomlValues';
import {
  checkUniqueAddresses,
  checkUniqueGroups,
  EXPECTED,
  isHost,
  isPath,
  isPort,
  isPositiveCount,
  TLS_NOT_SUPPORTED,
  TIMEOUT_SETTINGS,
  checkTimeouts,
} from './listenerRules';
import {
  CONFIG_DEFAULTS,
  KNOWN_HANDLERS,
  type HandlerGroupConfig,
  type ListenerConfig,
  type ListenerTimeouts,
} from './types';

/** Listener keys this package reads. */
const LISTENER_KEYS = [
  'port',
  'ip_address',
  'ip_version',
  'transport',
  'handlers',
];
/** Listener keys the original accepted that mean nothing here: accepted, not read. */
const IGNORED_LISTENER_KEYS = ['proto', 'hibernate_after', 'protocol'];
const TRANSPORT_KEYS = [
  'num_acceptors',
  'max_connections',
  ...Object.keys(TIMEOUT_SETTINGS),
];
const GROUP_KEYS = ['host', 'path', 'handlers', 'variant', 'deprecation'];
const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * Parses TOML text and returns our listeners in file order.
 * @param text the file's content
 * @param file the file's name, for error messages
 * @throws ConfigError on a TOML syntax error (with line and column) or an invalid setting
 *   (with its key path, e.g. `listen.http[0].port`)
 */
export function readTomlListeners(
  text: string,
  file: string
): ListenerConfig[] {
  return new TomlListenerReader(file).read(parseToml(text, file));
}

class TomlListenerReader {
  constructor(private readonly _file: string) {}

  read(document: TomlTable): ListenerConfig[] {
    const listen = document['listen'];
    if (!isTable(listen)) return [];
    const http = listen['http'];
    if (!Array.isArray(http)) {
      if (isTable(http) && hasServiceApi(http)) {
        this._fail('listen.http', http, 'an array of tables ([[listen.http]])');
      }
      return [];
    }
    const listeners: ListenerConfig[] = [];
    http.forEach((entry, index) => {
      if (isTable(entry) && hasServiceApi(entry))
        listeners.push(this._readListener(entry, `listen.http[${index}]`));
    });
    checkUniqueAddresses(listeners, this._file);
    return listeners;
  }

  private _readListener(table: TomlTable, place: string): ListenerConfig {
    if (table['tls'] !== undefined) {
      this._fail(
        `${place}.tls`,
        table['tls'],
        `no TLS settings: ${TLS_NOT_SUPPORTED}`
      );
    }
    this._checkKeys(table, place, LISTENER_KEYS, IGNORED_LISTENER_KEYS);

    const port = this._integer(
      table,
      place,
      'port',
      undefined,
      EXPECTED.port,
      isPort
    );
    const ipAddress = this._ipAddress(table, place);
    const ipVersion = this._ipVersion(table, place, ipAddress);

    const transport = table['transport'] ?? {};
    const transportPlace = `${place}.transport`;
    if (!isTable(transport)) this._fail(transportPlace, transport, 'a table');
    this._checkKeys(transport, transportPlace, TRANSPORT_KEYS, []);
    const setting = (key: string, fallback?: number, expected?: string) =>
      this._integer(transport, transportPlace, key, fallback, expected);
    const numAcceptors = setting('num_acceptors', CONFIG_DEFAULTS.numAcceptors);
    const maxConnections =
      transport['max_connections'] === 'infinity'
        ? Infinity
        : setting(
            'max_connections',
            CONFIG_DEFAULTS.maxConnections,
            `${EXPECTED.positiveInteger} or "infinity"`
          );
    const timeouts: ListenerTimeouts = {};
    for (const [key, field] of Object.entries(TIMEOUT_SETTINGS)) {
      if (transport[key] !== undefined)
        timeouts[field] = setting(key, undefined, EXPECTED.timeout);
    }

    const listener: ListenerConfig = {
      port,
      ipAddress,
      ipVersion,
      numAcceptors,
      maxConnections,
      ...timeouts,
      handlerGroups: this._readGroups(
        (table['handlers'] as TomlTable)['service_api'],
        `${place}.handlers.service_api`
      ),
      place,
    };
    checkUniqueGroups(listener, this._file);
    checkTimeouts(listener, `${place}.transport.headers_timeout`, this._file);
    return listener;
  }

  private _ipAddress(table: TomlTable, place: string): string | undefined {
    const value = table['ip_address'];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || isIP(value) === 0)
      this._fail(`${place}.ip_address`, value, EXPECTED.ipAddress);
    return value;
  }

  private _ipVersion(
    table: TomlTable,
    place: string,
    ipAddress: string | undefined
  ): 4 | 6 {
    const value = table['ip_version'];
    const addressVersion =
      ipAddress === undefined ? undefined : (isIP(ipAddress) as 4 | 6);
    if (value === undefined) return addressVersion ?? CONFIG_DEFAULTS.ipVersion;
    if (value !== 4n && value !== 6n)
      this._fail(`${place}.ip_version`, value, EXPECTED.ipVersion);
    const version = Number(value) as 4 | 6;
    if (addressVersion !== undefined && addressVersion !== version) {
      this._fail(
        `${place}.ip_version`,
        value,
        `${addressVersion} to match ip_address ${JSON.stringify(ipAddress)}`
      );
    }
    return version;
  }

  private _readGroups(
    value: TomlValue | undefined,
    place: string
  ): HandlerGroupConfig[] {
    if (!Array.isArray(value))
      this._fail(
        place,
        value,
        'an array of tables ([[listen.http.handlers.service_api]])'
      );
    if (value.length === 0)
      this._fail(
        place,
        value,
        'at least one [[listen.http.handlers.service_api]] table'
      );
    return value.map((entry, index) =>
      this._readGroup(entry, `${place}[${index}]`)
    );
  }

  private _readGroup(table: TomlValue, place: string): HandlerGroupConfig {
    if (!isTable(table)) this._fail(place, table, 'a table');
    this._checkKeys(table, place, GROUP_KEYS, []);
    const host = table['host'];
    if (typeof host !== 'string' || !isHost(host))
      this._fail(`${place}.host`, host, EXPECTED.host);
    const path = table['path'];
    if (typeof path !== 'string' || !isPath(path))
      this._fail(`${place}.path`, path, EXPECTED.path);
    return {
      host,
      path,
      variant:
        table['variant'] === undefined
          ? CONFIG_DEFAULTS.variant
          : this._oneOf(table['variant'], `${place}.variant`, VARIANTS),
      handlers: this._handlers(table['handlers'], `${place}.handlers`),
      ...(table['deprecation'] === undefined
        ? {}
        : {
            deprecation: readTomlDeprecation(
              table['deprecation'],
              `${place}.deprecation`,
              this._file
            ),
          }),
      place,
    };
  }

  private _handlers(value: TomlValue | undefined, place: string): string[] {
    if (value === undefined) return [...CONFIG_DEFAULTS.handlers];
    if (!Array.isArray(value) || value.length === 0)
      this._fail(place, value, 'a non-empty array of handler names');
    const handlers: string[] = [];
    value.forEach((name, index) => {
      const itemPlace = `${place}[${index}]`;
      const handler = this._oneOf(name, itemPlace, KNOWN_HANDLERS);
      if (handlers.includes(handler))
        this._fail(itemPlace, name, 'each handler once', ' a second time');
      handlers.push(handler);
    });
    return handlers;
  }

  /** `value` when it is one of `allowed`; otherwise the error naming the one it looks like. */
  private _oneOf<T extends string>(
    value: TomlValue | undefined,
    place: string,
    allowed: readonly T[]
  ): T {
    const found = allowed.find(name => name === value);
    if (found === undefined) {
      const name = typeof value === 'string' ? value : '';
      // Named as TOML writes a string.
      const show = (allowedName: string): string => JSON.stringify(allowedName);
      this._fail(place, value, expectedOneOf(name, allowed, show));
    }
    return found;
  }

  /** A required (`fallback` undefined) or optional integer setting. */
  private _integer(
    table: TomlTable,
    place: string,
    key: string,
    fallback: number | undefined,
    expected: string = EXPECTED.positiveInteger,
    valid: (value: bigint) => boolean = isPositiveCount
  ): number {
    const value = table[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'bigint' || !valid(value))
      this._fail(`${place}.${key}`, value, expected);
    return Number(value);
  }

  private _checkKeys(
    table: TomlTable,
    place: string,
    known: readonly string[],
    ignored: readonly string[]
  ): void {
    for (const key of Object.keys(table)) {
      if (known.includes(key) || ignored.includes(key)) continue;
      throw new ConfigError(
        this._file,
        `${place}.${shorten(BARE_KEY.test(key) ? key : JSON.stringify(key))}`,
        `found an unknown key, expected ${expectedOneOf(key, [...known, ...ignored])}`
      );
    }
  }

  private _fail(
    place: string,
    found: TomlValue | undefined,
    expected: string,
    foundSuffix = ''
  ): never {
    throw new ConfigError(
      this._file,
      place,
      `found ${render(found)}${foundSuffix}, expected ${expected}`
    );
  }
}

function hasServiceApi(listener: TomlTable): boolean {
  const handlers = listener['handlers'];
  return isTable(handlers) && handlers['service_api'] !== undefined;
}
