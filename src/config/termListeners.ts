/**
 * Reads our listeners from the older Erlang-term configuration form: the entries of the
 * `{listen, [...]}` term whose `{modules, [...]}` option lists a `service_api` module.
 * Other top-level terms and other listeners are left to the messaging server.
 */
import { isIP } from 'node:net';
import { readTermDeprecation } from './termDeprecation';
import {
  checkTimeouts,
  checkUniqueAddresses,
  checkUniqueGroups,
  EXPECTED,
  isHost,
  isPath,
  isPort,
  TIMEOUT_SETTINGS,
} from './listenerRules';
import {
  placeOf,
  type ListNode,
  type TermNode,
  type TupleNode,
} from './termNodes';
import { parseTerms } from './termParser';
import { isAtom, TermSettingsReader, valueOf } from './termSettings';
import {
  CONFIG_DEFAULTS,
  type HandlerGroupConfig,
  type ListenerConfig,
} from './types';

const SERVICE_API = 'service_api';
const LISTENER_OPTIONS = [
  'num_acceptors',
  'max_connections',
  'transport_options',
  'protocol_options',
  'modules',
];
const TRANSPORT_OPTIONS = [
  'num_acceptors',
  'max_connections',
  ...Object.keys(TIMEOUT_SETTINGS),
];
const GROUP_OPTIONS = ['handlers', 'variant', 'deprecation'];
const MODULE_ENTRY_SHAPES =
  '{Host, Path, Module}, {Host, Path, Module, Options} or {Host, Path, Options}';

/**
 * Parses term text and returns our listeners in file order.
 * @param text the file's content
 * @param file the file's name, for error messages
 * @throws ConfigError on a syntax error or an invalid setting, with its line and column
 */
export function readTermListeners(
  text: string,
  file: string
): ListenerConfig[] {
  return new TermListenerReader(file).read(parseTerms(text, file));
}

class TermListenerReader extends TermSettingsReader {
  read(terms: TermNode[]): ListenerConfig[] {
    let listen: TupleNode | undefined;
    for (const term of terms) {
      if (term.kind !== 'tuple' || !isAtom(term.elements[0], 'listen'))
        continue;
      if (listen !== undefined) {
        this._failAt(
          term,
          'a second listen term',
          `a single one (first at ${placeOf(listen)})`
        );
      }
      if (term.elements.length !== 2)
        this._fail(term, 'in the file', '{listen, [Listener, ...]}');
      listen = term;
    }
    if (listen === undefined) return [];
    const entries = listen.elements[1]!;
    if (entries.kind !== 'list')
      this._fail(entries, 'for listen', 'a list of listeners');

    const listeners: ListenerConfig[] = [];
    for (const entry of entries.elements) {
      if (entry.kind !== 'tuple' || entry.elements.length !== 3)
        this._fail(entry, 'in the listen list', '{Port, Module, Options}');
      const [address, module, options] = entry.elements as [
        TermNode,
        TermNode,
        TermNode,
      ];
      if (module.kind !== 'atom')
        this._fail(module, 'for the listener module', 'an atom');
      if (options.kind !== 'list')
        this._fail(options, 'for the listener options', 'a list');
      if (this._isOurs(options))
        listeners.push(this._readListener(entry, address, options));
    }
    checkUniqueAddresses(listeners, this._file);
    return listeners;
  }

  /** An HTTP listener (one with `{modules, [...]}`) with a `service_api` entry. */
  private _isOurs(options: ListNode): boolean {
    return options.elements.some(option => {
      if (
        option.kind !== 'tuple' ||
        option.elements.length !== 2 ||
        !isAtom(option.elements[0], 'modules')
      )
        return false;
      const modules = option.elements[1]!;
      if (modules.kind !== 'list')
        this._fail(modules, 'for modules', `a list of ${MODULE_ENTRY_SHAPES}`);
      return modules.elements.some(mentionsServiceApi);
    });
  }

  private _readListener(
    entry: TupleNode,
    address: TermNode,
    options: ListNode
  ): ListenerConfig {
    const { port, ipAddress } = this._readAddress(address);
    const settings = this._readOptions(
      options.elements,
      LISTENER_OPTIONS,
      'a listener option',
      '',
      true
    );
    const transport = valueOf(settings.get('transport_options'));
    if (transport !== undefined) {
      if (transport.kind !== 'list')
        this._fail(transport, 'for transport_options', 'a list');
      const inner = this._readOptions(
        transport.elements,
        TRANSPORT_OPTIONS,
        'a transport option',
        ' in transport_options'
      );
      for (const [name, option] of inner) this._addOnce(settings, name, option);
    }

    const count = (name: string, fallback: number, infinityAllowed = false) =>
      this._count(valueOf(settings.get(name)), name, fallback, infinityAllowed);
    const listener: ListenerConfig = {
      port,
      ipAddress,
      ipVersion: ipAddress?.includes(':') ? 6 : 4,
      numAcceptors: count('num_acceptors', CONFIG_DEFAULTS.numAcceptors),
      maxConnections: count(
        'max_connections',
        CONFIG_DEFAULTS.maxConnections,
        true
      ),
      handlerGroups: this._readGroups(
        valueOf(settings.get('modules')) as ListNode
      ),
      place: placeOf(entry),
    };
    for (const [key, field] of Object.entries(TIMEOUT_SETTINGS))
      if (settings.has(key)) listener[field] = count(key, 0);
    checkUniqueGroups(listener, this._file);
    const headersTimeout = settings.get('headers_timeout');
    if (headersTimeout !== undefined)
      checkTimeouts(listener, placeOf(headersTimeout), this._file);
    return listener;
  }

  private _readAddress(node: TermNode): {
    port: number;
    ipAddress: string | undefined;
  } {
    if (node.kind === 'integer')
      return { port: this._port(node), ipAddress: undefined };
    if (
      node.kind !== 'tuple' ||
      node.elements.length !== 2 ||
      node.elements[0]!.kind !== 'integer'
    ) {
      this._fail(node, 'for the listener address', 'Port or {Port, "Address"}');
    }
    const port = this._port(node.elements[0]!);
    const address = node.elements[1]!;
    const ipAddress =
      address.kind === 'string'
        ? address.value
        : address.kind === 'tuple'
          ? ipTupleToString(address)
          : undefined;
    if (ipAddress === undefined || isIP(ipAddress) === 0)
      this._fail(address, 'for the IP address', EXPECTED.ipAddress);
    return { port, ipAddress };
  }

  private _port(node: TermNode): number {
    if (node.kind !== 'integer' || !isPort(node.value))
      this._fail(node, 'for the port', EXPECTED.port);
    return Number(node.value);
  }

  private _readGroups(modules: ListNode): HandlerGroupConfig[] {
    const groups: HandlerGroupConfig[] = [];
    for (const entry of modules.elements) {
      if (
        entry.kind !== 'tuple' ||
        entry.elements.length < 3 ||
        entry.elements.length > 4
      ) {
        this._fail(entry, 'in modules', MODULE_ENTRY_SHAPES);
      }
      const third = entry.elements[2]!;
      const moduleLess = entry.elements.length === 3 && third.kind === 'list';
      if (!moduleLess && third.kind !== 'atom')
        this._fail(third, 'for the module', 'an atom such as service_api');
      if (moduleLess || isAtom(third, SERVICE_API))
        groups.push(this._readGroup(entry));
    }
    return groups;
  }

  private _readGroup(entry: TupleNode): HandlerGroupConfig {
    const [host, path, third, fourth] = entry.elements as [
      TermNode,
      TermNode,
      TermNode,
      TermNode | undefined,
    ];
    if (host.kind !== 'string' || !isHost(host.value))
      this._fail(host, 'for the host', EXPECTED.host);
    if (path.kind !== 'string' || !isPath(path.value))
      this._fail(path, 'for the path', EXPECTED.path);
    const optionList = third.kind === 'list' ? third : fourth;
    if (optionList !== undefined && optionList.kind !== 'list')
      this._fail(optionList, 'for the service_api options', 'a list');
    const options = this._readOptions(
      optionList?.elements ?? [],
      GROUP_OPTIONS,
      'a service_api option',
      ''
    );
    return {
      host: host.value,
      path: path.value,
      variant: this._variant(valueOf(options.get('variant'))),
      handlers: this._handlers(valueOf(options.get('handlers'))),
      ...(options.has('deprecation')
        ? {
            deprecation: readTermDeprecation(
              valueOf(options.get('deprecation'))!,
              this._file
            ),
          }
        : {}),
      place: placeOf(entry),
    };
  }
}

/** Whether a `modules` entry is meant for us: it names service_api, or has no module. */
function mentionsServiceApi(entry: TermNode): boolean {
  if (entry.kind !== 'tuple') return false;
  return (
    entry.elements.some(e => isAtom(e, SERVICE_API)) ||
    (entry.elements.length === 3 && entry.elements[2]!.kind === 'list')
  );
}

/** `{127,0,0,1}` or an 8-part IPv6 tuple as an address literal; undefined for anything else. */
function ipTupleToString(tuple: TupleNode): string | undefined {
  const parts = tuple.elements.map(e => (e.kind === 'integer' ? e.value : -1n));
  if (parts.length === 4 && parts.every(p => p >= 0n && p <= 255n))
    return parts.join('.');
  if (parts.length === 8 && parts.every(p => p >= 0n && p <= 65535n))
    return parts.map(p => p.toString(16)).join(':');
  return undefined;
}
