import { readTermListeners } from '../../src/config/termListeners';
import { expectConfigError } from './expectConfigError';

/** A `listen` term with one entry per line, the first on line 2 at column 1. */
function listen(...entries: string[]): string {
  return `{listen, [\n${entries.join(',\n')}\n]}.\n`;
}

/** An HTTP listener entry on port 8088 with the given options before `modules`. */
function http(options: string, modules = '{"_", "/api", service_api}'): string {
  return `{8088, http_listener, [${options}{modules, [${modules}]}]}`;
}

describe('readTermListeners', () => {
  describe('valid files', () => {
    it('should read the minimal listener with every default', () => {
      expect(readTermListeners(listen(http('')), 'ok.cfg')).toEqual([
        {
          port: 8088,
          ipAddress: undefined,
          ipVersion: 4,
          numAcceptors: 100,
          maxConnections: 1024,
          handlerGroups: [
            {
              host: '_',
              path: '/api',
              variant: 'host_type',
              handlers: ['service_api_metrics', 'service_api_users'],
              place: 'line 2, column 35',
            },
          ],
          place: 'line 2, column 1',
        },
      ]);
    });

    it.each([
      ['8088', undefined, 4],
      ['{8088, "127.0.0.1"}', '127.0.0.1', 4],
      ['{8088, "::1"}', '::1', 6],
      ['{8088, "::"}', '::', 6],
      ['{8088, {127,0,0,1}}', '127.0.0.1', 4],
      ['{8088, {0,0,0,0,0,0,0,1}}', '0:0:0:0:0:0:0:1', 6],
    ])('should read the address %s', (address, ipAddress, ipVersion) => {
      const [read] = readTermListeners(
        listen(
          `{${address}, http_listener, [{modules, [{"_", "/api", service_api}]}]}`
        ),
        'ok.cfg'
      );
      expect(read).toMatchObject({ port: 8088, ipAddress, ipVersion });
    });

    it('should read the timeout extensions in transport_options, in milliseconds', () => {
      const [read] = readTermListeners(
        listen(
          http(
            '{transport_options, [{request_timeout, 3000}, {headers_timeout, 2000}, {keep_alive_timeout, 1000}]}, '
          )
        ),
        'ok.cfg'
      );
      expect(read).toMatchObject({
        requestTimeout: 3000,
        headersTimeout: 2000,
        keepAliveTimeout: 1000,
      });
    });

    it('should refuse a headers timeout beyond the request timeout', () => {
      expect(() =>
        readTermListeners(
          listen(
            http(
              '{transport_options, [{request_timeout, 1000}, {headers_timeout, 2000}]}, '
            )
          ),
          'bad.cfg'
        )
      ).toThrow(/found 2000, expected at most the request timeout \(1000\)$/);
    });

    it.each([
      ['{max_connections, infinity}, ', 100, Infinity],
      ['{max_connections, 10}, {num_acceptors, 5}, ', 5, 10],
      [
        '{transport_options, [{max_connections, 10}, {num_acceptors, 5}]}, ',
        5,
        10,
      ],
      [
        '{num_acceptors, 5}, {transport_options, [{max_connections, infinity}]}, ',
        5,
        Infinity,
      ],
      [
        '{protocol_options, [{compress, true}]}, {transport_options, []}, ',
        100,
        1024,
      ],
    ])(
      'should read the options %s',
      (options, numAcceptors, maxConnections) => {
        const [read] = readTermListeners(listen(http(options)), 'ok.cfg');
        expect(read).toMatchObject({ numAcceptors, maxConnections });
      }
    );

    it.each([
      [
        '{"_", "/api", service_api}',
        'host_type',
        ['service_api_metrics', 'service_api_users'],
      ],
      [
        '{"_", "/api", service_api, []}',
        'host_type',
        ['service_api_metrics', 'service_api_users'],
      ],
      [
        '{"_", "/api", []}',
        'host_type',
        ['service_api_metrics', 'service_api_users'],
      ],
      [
        '{"_", "/api", [{handlers, [service_api_users]}, {variant, host}]}',
        'host',
        ['service_api_users'],
      ],
      [
        '{"_", "/api", service_api, [{variant, host_type}, {handlers, [service_api_users, service_api_metrics]}]}',
        'host_type',
        ['service_api_users', 'service_api_metrics'],
      ],
    ])('should read the module entry %s', (entry, variant, handlers) => {
      const [read] = readTermListeners(listen(http('', entry)), 'ok.cfg');
      expect(read!.handlerGroups).toEqual([
        {
          host: '_',
          path: '/api',
          variant,
          handlers,
          place: 'line 2, column 35',
        },
      ]);
    });

    it('should ignore other modules, even of the same listener', () => {
      const modules =
        '{"_", "/http-bind", mod_bosh}, {"localhost", "/api", service_api}, {"_", "/ws-xmpp", mod_websockets, [{timeout, 600}]}';
      const [read] = readTermListeners(listen(http('', modules)), 'ok.cfg');
      expect(read!.handlerGroups.map(g => [g.host, g.path])).toEqual([
        ['localhost', '/api'],
      ]);
    });

    it('should ignore other listeners, whatever their options, and other top-level terms', () => {
      const text =
        '{hosts, ["localhost"]}.\nsome_atom.\n"a string".\n[1, 2].\n' +
        listen(
          '{5222, ejabberd_c2s, [starttls, {access, c2s}, {ip, {0,0,0,0}}]}',
          '{{5285, "0.0.0.0"}, ejabberd_cowboy, [{ssl, [{certfile, "c.pem"}]}, {modules, [{"_", "/http-bind", mod_bosh}]}]}',
          '{"not even a port", whatever, []}',
          http('')
        );
      expect(readTermListeners(text, 'ok.cfg').map(l => l.place)).toEqual([
        'line 9, column 1',
      ]);
    });

    it('should return no listeners for an empty listen list or none at all', () => {
      expect(readTermListeners('{listen, []}.', 'ok.cfg')).toEqual([]);
      expect(readTermListeners('% nothing\n', 'ok.cfg')).toEqual([]);
      expect(readTermListeners('', 'ok.cfg')).toEqual([]);
    });

    it('should allow several listeners on port 0 and one port on two addresses', () => {
      const text = listen(
        '{0, http_listener, [{modules, [{"_", "/api", service_api}]}]}',
        '{0, http_listener, [{modules, [{"_", "/api", service_api}]}]}',
        '{{8088, "127.0.0.1"}, http_listener, [{modules, [{"_", "/api", service_api}]}]}',
        '{{8088, "::1"}, http_listener, [{modules, [{"_", "/api", service_api}]}]}'
      );
      expect(readTermListeners(text, 'ok.cfg')).toHaveLength(4);
    });
  });

  describe('invalid files', () => {
    it.each([
      [
        'a port above 65535',
        listen(
          '{70000, http_listener, [{modules, [{"_", "/api", service_api}]}]}'
        ),
        'line 2, column 2: found 70000 for the port, expected an integer from 0 to 65535',
      ],
      [
        'a negative port in a tuple',
        listen(
          '{{-1, "127.0.0.1"}, http_listener, [{modules, [{"_", "/api", service_api}]}]}'
        ),
        'line 2, column 3: found -1 for the port, expected an integer from 0 to 65535',
      ],
      [
        'a port given as a string',
        listen(
          '{"8088", http_listener, [{modules, [{"_", "/api", service_api}]}]}'
        ),
        'line 2, column 2: found "8088" for the listener address, expected Port or {Port, "Address"}',
      ],
      [
        'a host name as the address',
        listen(
          '{{8088, "localhost"}, http_listener, [{modules, [{"_", "/api", service_api}]}]}'
        ),
        'line 2, column 9: found "localhost" for the IP address, expected an IPv4 or IPv6 address such as "127.0.0.1" or "::1"',
      ],
      [
        'an address tuple with a transport',
        listen(
          '{{8088, "127.0.0.1", tcp}, http_listener, [{modules, [{"_", "/api", service_api}]}]}'
        ),
        'line 2, column 2: found {8088,"127.0.0.1",tcp} for the listener address, expected Port or {Port, "Address"}',
      ],
      [
        'options that are not a list',
        listen(
          '{8088, http_listener, {modules, [{"_", "/api", service_api}]}}'
        ),
        'line 2, column 23: found {modules,[{"_","/api",service_api}]} for the listener options, expected a list',
      ],
      [
        'a listener tuple of two',
        listen('{8088, http_listener}'),
        'line 2, column 1: found {8088,http_listener} in the listen list, expected {Port, Module, Options}',
      ],
      [
        'a listener module given as a string',
        listen(
          '{8088, "http_listener", [{modules, [{"_", "/api", service_api}]}]}'
        ),
        'line 2, column 8: found "http_listener" for the listener module, expected an atom',
      ],
      [
        'num_acceptors 0',
        listen(http('{num_acceptors, 0}, ')),
        'line 2, column 40: found 0 for num_acceptors, expected a positive integer',
      ],
      [
        'max_connections 0 in transport_options',
        listen(http('{transport_options, [{max_connections, 0}]}, ')),
        'line 2, column 63: found 0 for max_connections, expected a positive integer or infinity',
      ],
      [
        'max_connections given as a string',
        listen(http('{max_connections, "infinity"}, ')),
        'line 2, column 42: found "infinity" for max_connections, expected a positive integer or infinity',
      ],
      [
        'an unknown listener option',
        listen(http('{ip, {127,0,0,1}}, ')),
        'line 2, column 24: found unknown option ip, expected one of num_acceptors, max_connections, transport_options, protocol_options, modules',
      ],
      [
        'a toString listener option',
        listen(http('{toString, 1}, ')),
        'line 2, column 24: found unknown option toString, expected one of num_acceptors, max_connections, transport_options, protocol_options, modules',
      ],
      [
        'a __proto__ listener option',
        listen(http("{'__proto__', 1}, ")),
        "line 2, column 24: found unknown option '__proto__', expected one of num_acceptors, max_connections, transport_options, protocol_options, modules",
      ],
      [
        'a misspelt listener option',
        listen(http('{max_conections, 10}, ')),
        'line 2, column 24: found unknown option max_conections, expected one of num_acceptors, max_connections, transport_options, ' +
          'protocol_options, modules (did you mean max_connections?)',
      ],
      [
        'an ssl option',
        listen(http('{ssl, [{certfile, "c.pem"}]}, ')),
        'line 2, column 24: found {ssl,[{certfile,"c.pem"}]}, expected no TLS settings: ' +
          'TLS is not supported by this listener; terminate TLS in a reverse proxy',
      ],
      [
        'an option given twice',
        listen(http('{num_acceptors, 5}, {num_acceptors, 6}, ')),
        'line 2, column 44: found num_acceptors a second time, expected each option once (first at line 2, column 24)',
      ],
      [
        'max_connections both at the top and in transport_options',
        listen(
          http(
            '{max_connections, 5}, {transport_options, [{max_connections, 6}]}, '
          )
        ),
        'line 2, column 67: found max_connections a second time, expected each option once (first at line 2, column 24)',
      ],
      [
        'an unknown transport option',
        listen(http('{transport_options, [{backlog, 10}]}, ')),
        'line 2, column 45: found unknown option backlog in transport_options, expected one of num_acceptors, max_connections, request_timeout, headers_timeout, keep_alive_timeout',
      ],
      [
        'transport_options that are not a list',
        listen(http('{transport_options, {max_connections, 10}}, ')),
        'line 2, column 44: found {max_connections,10} for transport_options, expected a list',
      ],
      [
        'a bare atom among the options',
        listen(http('starttls, ')),
        'line 2, column 24: found starttls for a listener option, expected {Name, Value}',
      ],
      [
        'modules that are not a list',
        listen(
          '{8088, http_listener, [{modules, {"_", "/api", service_api}}]}'
        ),
        'line 2, column 34: found {"_","/api",service_api} for modules, ' +
          'expected a list of {Host, Path, Module}, {Host, Path, Module, Options} or {Host, Path, Options}',
      ],
      [
        'a module entry of five elements',
        listen(http('', '{"_", "/api", service_api, [], extra}')),
        'line 2, column 35: found {"_","/api",service_api,[],extra} in modules, ' +
          'expected {Host, Path, Module}, {Host, Path, Module, Options} or {Host, Path, Options}',
      ],
      [
        'a module given as a string next to ours',
        listen(
          http('', '{"_", "/api", service_api}, {"_", "/x", "mod_bosh", []}')
        ),
        'line 2, column 75: found "mod_bosh" for the module, expected an atom such as service_api',
      ],
      [
        'an empty host',
        listen(http('', '{"", "/api", service_api}')),
        'line 2, column 36: found "" for the host, expected a non-empty string ("_" for any host)',
      ],
      [
        'a host given as an atom',
        listen(http('', '{localhost, "/api", service_api}')),
        'line 2, column 36: found localhost for the host, expected a non-empty string ("_" for any host)',
      ],
      [
        'a host given as a binary',
        listen(http('', '{<<"_">>, "/api", service_api}')),
        'line 2, column 36: found <<"_">> for the host, expected a non-empty string ("_" for any host)',
      ],
      [
        'a path without the leading slash',
        listen(http('', '{"_", "api", service_api}')),
        'line 2, column 41: found "api" for the path, expected a string starting with "/"',
      ],
      [
        'service_api options that are not a list',
        listen(
          http(
            '',
            '{"_", "/api", service_api, {handlers, [service_api_metrics]}}'
          )
        ),
        'line 2, column 62: found {handlers,[service_api_metrics]} for the service_api options, expected a list',
      ],
      [
        'an empty handlers list',
        listen(http('', '{"_", "/api", service_api, [{handlers, []}]}')),
        'line 2, column 74: found [] for handlers, expected a non-empty list of handler names',
      ],
      [
        'a misspelt handler',
        listen(
          http(
            '',
            '{"_", "/api", service_api, [{handlers, [service_api_metric]}]}'
          )
        ),
        'line 2, column 75: found service_api_metric for a handler, expected service_api_metrics or service_api_users ' +
          '(did you mean service_api_metrics?)',
      ],
      [
        'a handler given as a string',
        listen(
          http(
            '',
            '{"_", "/api", service_api, [{handlers, ["service_api_metrics"]}]}'
          )
        ),
        'line 2, column 75: found "service_api_metrics" for a handler, expected service_api_metrics or service_api_users ' +
          '(did you mean service_api_metrics?)',
      ],
      [
        'a handler listed twice',
        listen(
          http(
            '',
            '{"_", "/api", service_api, [{handlers, [service_api_metrics, service_api_metrics]}]}'
          )
        ),
        'line 2, column 96: found service_api_metrics a second time, expected each handler once',
      ],
      [
        'an unknown variant',
        listen(http('', '{"_", "/api", service_api, [{variant, hosts}]}')),
        'line 2, column 73: found hosts for variant, expected host_type or host (did you mean host?)',
      ],
      [
        'an unknown service_api option',
        listen(
          http(
            '',
            '{"_", "/api", service_api, [{handler, [service_api_metrics]}]}'
          )
        ),
        'line 2, column 63: found unknown option handler, expected one of handlers, variant, deprecation (did you mean handlers?)',
      ],
      [
        'an unknown option in the module-less form',
        listen(http('', '{"_", "/api", [{variants, host}]}')),
        'line 2, column 50: found unknown option variants, expected one of handlers, variant, deprecation (did you mean variant?)',
      ],
      [
        'two module entries with the same host and path',
        listen(
          http(
            '',
            '{"_", "/api", service_api}, {"_", "/api", [{handlers, [service_api_metrics]}]}'
          )
        ),
        'line 2, column 63: found host "_" and path "/api" a second time, expected each host and path once per listener ' +
          '(first at line 2, column 35)',
      ],
      [
        'two listeners on the same port',
        listen(http(''), '{5222, c2s_listener, []}', http('')),
        'line 4, column 1: found port 8088 on the default address a second time, expected each address and port once ' +
          '(first at line 2, column 1)',
      ],
      [
        'listen that is not a list',
        '{listen, {}}.',
        'line 1, column 10: found {} for listen, expected a list of listeners',
      ],
      [
        'a second listen term',
        '{listen, []}.\n{hosts, []}.\n{listen, []}.\n',
        'line 3, column 1: found a second listen term, expected a single one (first at line 1, column 1)',
      ],
      [
        'a listen term of three elements',
        '{listen, [], extra}.',
        'line 1, column 1: found {listen,[],extra} in the file, expected {listen, [Listener, ...]}',
      ],
      [
        'a missing full stop',
        '{listen, []}\n',
        'line 2, column 1: found end of file, expected . to end the term',
      ],
      [
        'a variable',
        '{listen, [{Port, http_listener, []}]}.',
        'line 1, column 12: found variable Port, expected a term (write \'Port\' for an atom or "Port" for a string)',
      ],
      [
        'a list with a tail',
        '{listen, [a | b]}.',
        'line 1, column 13: found |, expected , or ] (lists with a tail [H | T] are not supported)',
      ],
      [
        'an unterminated string',
        '{hosts, ["localhost]}.\n',
        'line 2, column 1: found end of file, expected " to close the string opened at line 1, column 10',
      ],
    ])('should reject %s', (_what, text, message) => {
      expectConfigError(
        () => readTermListeners(text, 'bad.cfg'),
        `bad.cfg: ${message}`
      );
    });
  });
});
