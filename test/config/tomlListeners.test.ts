import { readTomlListeners } from '../../src/config/tomlListeners';
import { expectConfigError } from './expectConfigError';

const GROUP =
  '[[listen.http.handlers.service_api]]\n  host = "_"\n  path = "/api"\n';

/** One `[[listen.http]]` with the given settings, followed by handler groups. */
function listener(settings: string, ...groups: string[]): string {
  return `[[listen.http]]\n${settings}\n${(groups.length === 0 ? [GROUP] : groups).join('\n')}`;
}

/** A handler group with the given settings. */
function group(settings: string): string {
  return `[[listen.http.handlers.service_api]]\n${settings}\n`;
}

describe('readTomlListeners', () => {
  describe('valid files', () => {
    it('should read the minimal listener with every default', () => {
      expect(readTomlListeners(listener('port = 8088'), 'ok.toml')).toEqual([
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
              place: 'listen.http[0].handlers.service_api[0]',
            },
          ],
          place: 'listen.http[0]',
        },
      ]);
    });

    it.each([
      ['ip_version = 6', undefined, 6],
      ['ip_version = 4', undefined, 4],
      ['ip_address = "::"', '::', 6],
      ['ip_address = "::1"\nip_version = 6', '::1', 6],
      ['ip_address = "0.0.0.0"\nip_version = 4', '0.0.0.0', 4],
      ['ip_address = "192.0.2.10"', '192.0.2.10', 4],
    ])(
      'should derive the IP version from %j',
      (settings, ipAddress, ipVersion) => {
        const [read] = readTomlListeners(
          listener(`port = 8088\n${settings}`),
          'ok.toml'
        );
        expect(read).toMatchObject({ ipAddress, ipVersion });
      }
    );

    it('should turn max_connections "infinity" into Infinity', () => {
      const [read] = readTomlListeners(
        listener('port = 8088\ntransport.max_connections = "infinity"'),
        'ok.toml'
      );
      expect(read!.maxConnections).toBe(Infinity);
    });

    it('should read the timeout extensions under transport, in milliseconds', () => {
      const [read] = readTomlListeners(
        listener(
          'port = 8088\ntransport.request_timeout = 3000\ntransport.headers_timeout = 2000\ntransport.keep_alive_timeout = 1000'
        ),
        'ok.toml'
      );
      expect(read).toMatchObject({
        requestTimeout: 3000,
        headersTimeout: 2000,
        keepAliveTimeout: 1000,
      });
    });

    it('should accept and ignore the listener keys that mean nothing here', () => {
      const settings =
        'port = 8088\nproto = "tcp"\nhibernate_after = 5000\nprotocol.compress = true';
      expect(readTomlListeners(listener(settings), 'ok.toml')).toHaveLength(1);
    });

    it('should read listeners written as inline tables', () => {
      const text =
        '[listen]\nhttp = [{port = 8088, handlers = {service_api = [{host = "_", path = "/api", variant = "host"}]}}]\n';
      expect(readTomlListeners(text, 'ok.toml')).toMatchObject([
        {
          port: 8088,
          handlerGroups: [{ host: '_', path: '/api', variant: 'host' }],
        },
      ]);
    });

    it('should count only [[listen.http]] entries in places, ours or not', () => {
      const bosh =
        '[[listen.http]]\nport = 5280\n[[listen.http.handlers.mod_bosh]]\nhost = "_"\npath = "/http-bind"\n';
      const read = readTomlListeners(
        `[[listen.c2s]]\nport = 5222\n${bosh}${listener('port = 8088')}`,
        'ok.toml'
      );
      expect(read.map(l => l.place)).toEqual(['listen.http[1]']);
    });

    it('should allow several listeners on port 0 and one port on two addresses', () => {
      const text = [
        listener('port = 0'),
        listener('port = 0'),
        listener('port = 8088\nip_address = "127.0.0.1"'),
        listener('port = 8088\nip_address = "::1"'),
      ].join('\n');
      expect(readTomlListeners(text, 'ok.toml').map(l => l.place)).toEqual([
        'listen.http[0]',
        'listen.http[1]',
        'listen.http[2]',
        'listen.http[3]',
      ]);
    });

    it('should allow one host and path on two listeners, and two paths for one host', () => {
      const text =
        listener('port = 8088', GROUP, group('host = "_"\npath = "/other"')) +
        listener('port = 8089');
      expect(readTomlListeners(text, 'ok.toml')).toHaveLength(2);
    });
  });

  describe('invalid files', () => {
    it.each([
      [
        'a missing port',
        listener(''),
        'listen.http[0].port: found nothing, expected an integer from 0 to 65535',
      ],
      [
        'a port given as a string',
        listener('port = "8088"'),
        'listen.http[0].port: found "8088", expected an integer from 0 to 65535',
      ],
      [
        'a port above 65535',
        listener('port = 65536'),
        'listen.http[0].port: found 65536, expected an integer from 0 to 65535',
      ],
      [
        'a negative port',
        listener('port = -1'),
        'listen.http[0].port: found -1, expected an integer from 0 to 65535',
      ],
      [
        'a float port',
        listener('port = 8088.0'),
        'listen.http[0].port: found 8088.0, expected an integer from 0 to 65535',
      ],
      [
        'a host name as ip_address',
        listener('port = 8088\nip_address = "localhost"'),
        'listen.http[0].ip_address: found "localhost", expected an IPv4 or IPv6 address such as "127.0.0.1" or "::1"',
      ],
      [
        'ip_version 5',
        listener('port = 8088\nip_version = 5'),
        'listen.http[0].ip_version: found 5, expected 4 or 6',
      ],
      [
        'ip_version contradicting ip_address',
        listener('port = 8088\nip_address = "::1"\nip_version = 4'),
        'listen.http[0].ip_version: found 4, expected 6 to match ip_address "::1"',
      ],
      [
        'num_acceptors 0',
        listener('port = 8088\ntransport.num_acceptors = 0'),
        'listen.http[0].transport.num_acceptors: found 0, expected a positive integer',
      ],
      [
        'max_connections 0',
        listener('port = 8088\ntransport.max_connections = 0'),
        'listen.http[0].transport.max_connections: found 0, expected a positive integer or "infinity"',
      ],
      [
        'request_timeout 0',
        listener('port = 8088\ntransport.request_timeout = 0'),
        'listen.http[0].transport.request_timeout: found 0, expected a positive integer of milliseconds',
      ],
      [
        'keep_alive_timeout "5s"',
        listener('port = 8088\ntransport.keep_alive_timeout = "5s"'),
        'listen.http[0].transport.keep_alive_timeout: found "5s", expected a positive integer of milliseconds',
      ],
      [
        'headers_timeout beyond request_timeout',
        listener(
          'port = 8088\ntransport.request_timeout = 1000\ntransport.headers_timeout = 2000'
        ),
        'listen.http[0].transport.headers_timeout: found 2000, expected at most the request timeout (1000)',
      ],
      [
        'max_connections "unlimited"',
        listener('port = 8088\ntransport.max_connections = "unlimited"'),
        'listen.http[0].transport.max_connections: found "unlimited", expected a positive integer or "infinity"',
      ],
      [
        'an unknown transport key',
        listener('port = 8088\ntransport.backlog = 1024'),
        'listen.http[0].transport.backlog: found an unknown key, expected one of num_acceptors, max_connections, request_timeout, headers_timeout, keep_alive_timeout',
      ],
      [
        'a constructor key on the listener',
        listener('port = 8088\nconstructor = 1'),
        'listen.http[0].constructor: found an unknown key, expected one of port, ip_address, ip_version, transport, handlers, proto, hibernate_after, protocol',
      ],
      [
        'a toString transport key',
        listener('port = 8088\ntransport.toString = 1'),
        'listen.http[0].transport.toString: found an unknown key, expected one of num_acceptors, max_connections, request_timeout, headers_timeout, keep_alive_timeout',
      ],
      [
        'a __proto__ table on the listener',
        listener('port = 8088\n__proto__ = { port = 1 }'),
        'listen.http[0].__proto__: found an unknown key, expected one of port, ip_address, ip_version, transport, handlers, proto, hibernate_after, protocol (did you mean proto?)',
      ],
      [
        'a transport that is not a table',
        listener('port = 8088\ntransport = 10'),
        'listen.http[0].transport: found 10, expected a table',
      ],
      [
        'a tls section',
        listener('port = 8088\ntls.verify_mode = "none"'),
        'listen.http[0].tls: found {"verify_mode":"none"}, expected no TLS settings: ' +
          'TLS is not supported by this listener; terminate TLS in a reverse proxy',
      ],
      [
        'a misspelt listener key',
        listener('port = 8088\nip_adress = "127.0.0.1"'),
        'listen.http[0].ip_adress: found an unknown key, expected one of port, ip_address, ip_version, transport, handlers, ' +
          'proto, hibernate_after, protocol (did you mean ip_address?)',
      ],
      [
        'a missing host',
        listener('port = 8088', group('path = "/api"')),
        'listen.http[0].handlers.service_api[0].host: found nothing, expected a non-empty string ("_" for any host)',
      ],
      [
        'an empty host',
        listener('port = 8088', group('host = ""\npath = "/api"')),
        'listen.http[0].handlers.service_api[0].host: found "", expected a non-empty string ("_" for any host)',
      ],
      [
        'a missing path',
        listener('port = 8088', group('host = "_"')),
        'listen.http[0].handlers.service_api[0].path: found nothing, expected a string starting with "/"',
      ],
      [
        'a path without the leading slash',
        listener('port = 8088', group('host = "_"\npath = "api"')),
        'listen.http[0].handlers.service_api[0].path: found "api", expected a string starting with "/"',
      ],
      [
        'an empty handlers array',
        listener(
          'port = 8088',
          group('host = "_"\npath = "/api"\nhandlers = []')
        ),
        'listen.http[0].handlers.service_api[0].handlers: found [], expected a non-empty array of handler names',
      ],
      [
        'handlers given as a string',
        listener(
          'port = 8088',
          group('host = "_"\npath = "/api"\nhandlers = "service_api_metrics"')
        ),
        'listen.http[0].handlers.service_api[0].handlers: found "service_api_metrics", expected a non-empty array of handler names',
      ],
      [
        'an unknown handler',
        listener(
          'port = 8088',
          group(
            'host = "_"\npath = "/api"\nhandlers = ["service_api_metrics", "metrics"]'
          )
        ),
        'listen.http[0].handlers.service_api[0].handlers[1]: found "metrics", expected "service_api_metrics" or "service_api_users"',
      ],
      [
        'a misspelt handler',
        listener(
          'port = 8088',
          group('host = "_"\npath = "/api"\nhandlers = ["service_api_metric"]')
        ),
        'listen.http[0].handlers.service_api[0].handlers[0]: found "service_api_metric", ' +
          'expected "service_api_metrics" or "service_api_users" (did you mean "service_api_metrics"?)',
      ],
      [
        'a handler listed twice',
        listener(
          'port = 8088',
          group(
            'host = "_"\npath = "/api"\nhandlers = ["service_api_metrics", "service_api_metrics"]'
          )
        ),
        'listen.http[0].handlers.service_api[0].handlers[1]: found "service_api_metrics" a second time, expected each handler once',
      ],
      [
        'an unknown variant',
        listener(
          'port = 8088',
          group('host = "_"\npath = "/api"\nvariant = "hosts"')
        ),
        'listen.http[0].handlers.service_api[0].variant: found "hosts", expected "host_type" or "host" (did you mean "host"?)',
      ],
      [
        'an unknown handler group key',
        listener(
          'port = 8088',
          group('host = "_"\npath = "/api"\nprefix = "/metrics"')
        ),
        'listen.http[0].handlers.service_api[0].prefix: found an unknown key, expected one of host, path, handlers, variant, deprecation',
      ],
      [
        'an unknown key that needs quoting',
        listener(
          'port = 8088',
          group('host = "_"\npath = "/api"\n"the path" = "/metrics"')
        ),
        'listen.http[0].handlers.service_api[0]."the path": found an unknown key, expected one of host, path, handlers, variant, deprecation',
      ],
      [
        'two handler groups with the same host and path',
        listener('port = 8088', GROUP, GROUP),
        'listen.http[0].handlers.service_api[1]: found host "_" and path "/api" a second time, ' +
          'expected each host and path once per listener (first at listen.http[0].handlers.service_api[0])',
      ],
      [
        'two listeners on the same default address and port',
        listener('port = 8088') + listener('port = 8088'),
        'listen.http[1]: found port 8088 on the default address a second time, expected each address and port once (first at listen.http[0])',
      ],
      [
        'two listeners on the same address and port',
        listener('port = 8088\nip_address = "127.0.0.1"') +
          listener('port = 8089') +
          listener('port = 8088\nip_address = "127.0.0.1"'),
        'listen.http[2]: found port 8088 on 127.0.0.1 a second time, expected each address and port once (first at listen.http[0])',
      ],
      [
        'a single [listen.http.handlers.service_api] table',
        '[[listen.http]]\nport = 8088\n[listen.http.handlers.service_api]\nhost = "_"\npath = "/api"\n',
        'listen.http[0].handlers.service_api: found {"host":"_","path":"/api"}, ' +
          'expected an array of tables ([[listen.http.handlers.service_api]])',
      ],
      [
        'a single [listen.http] table',
        '[listen.http]\nport = 8088\n[[listen.http.handlers.service_api]]\nhost = "_"\npath = "/api"\n',
        'listen.http: found {"port":8088,"handlers":{"service_api":[{"host":"_","path":…, ' +
          'expected an array of tables ([[listen.http]])',
      ],
      [
        'an empty service_api array',
        '[[listen.http]]\nport = 8088\nhandlers.service_api = []\n',
        'listen.http[0].handlers.service_api: found [], expected at least one [[listen.http.handlers.service_api]] table',
      ],
      [
        'a service_api entry that is not a table',
        '[[listen.http]]\nport = 8088\nhandlers.service_api = [1]\n',
        'listen.http[0].handlers.service_api[0]: found 1, expected a table',
      ],
      [
        'a mistake in the second of our listeners, after a listener of someone else',
        '[[listen.http]]\nport = 5280\n[[listen.http.handlers.mod_bosh]]\nhost = "_"\npath = "/http-bind"\n' +
          listener('port = 8088') +
          listener(
            'port = 8089',
            group(
              'host = "_"\npath = "/api"\nhandlers = ["service_api_users", "service_api_user"]'
            )
          ),
        'listen.http[2].handlers.service_api[0].handlers[1]: found "service_api_user", ' +
          'expected "service_api_metrics" or "service_api_users" (did you mean "service_api_users"?)',
      ],
      [
        'a TOML syntax error',
        '[general]\nhosts = ["localhost"\n[[listen.http]]\nport = 8088\n',
        'line 3, column 1: found invalid TOML (expected comma or end of structure), expected valid TOML syntax',
      ],
    ])('should reject %s', (_what, text, message) => {
      expectConfigError(
        () => readTomlListeners(text, 'bad.toml'),
        `bad.toml: ${message}`
      );
    });

    it('should name the file as given', () => {
      expectConfigError(
        () => readTomlListeners(listener(''), 'conf/server.toml'),
        'conf/server.toml: listen.http[0].port: found nothing, expected an integer from 0 to 65535'
      );
    });
  });
});
