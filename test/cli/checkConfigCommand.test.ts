import { join, resolve } from 'node:path';
import { describeConfig } from '../../src/cli/checkConfigCommand';
import { loadLegacyApiConfig, parseLegacyApiConfig } from '../../src';
import { EXAMPLE_OUTPUTS } from './exampleOutputs';

const ROOT = resolve(__dirname, '..', '..');

describe('describeConfig', () => {
  it.each(EXAMPLE_OUTPUTS)(
    'should describe %s with every setting in effect',
    async (file, expected) => {
      const config = await loadLegacyApiConfig(join(ROOT, file));
      expect(describeConfig({ ...config, file })).toEqual(expected);
    }
  );

  it('should show the loopback default, a wildcard bind, Host names and groups that serve nothing', () => {
    const text = `
[[listen.http]]
  port = 0
  ip_version = 6
  transport.max_connections = "infinity"
  [[listen.http.handlers.service_api]]
    host = "127.0.0.1"
    path = "/"
    variant = "host"
  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/users/"
    handlers = ["service_api_users"]

[[listen.http]]
  port = 5288
  ip_address = "0.0.0.0"
  [[listen.http.handlers.service_api]]
    host = "metrics.example.com"
    path = "/api/"
    handlers = ["service_api_metrics"]
`;
    expect(describeConfig(parseLegacyApiConfig(text, 'two.toml'))).toEqual([
      'two.toml: valid TOML configuration: 2 listeners, 2 handler groups serving the legacy metrics API',
      'listener (listen.http[0])',
      '  address           ::1 (loopback default)',
      '  port              0 (the system picks a free port)',
      '  num_acceptors     100 (no effect on Node)',
      '  max_connections   infinity',
      '  handler group (listen.http[0].handlers.service_api[0])',
      '    prefix          / (the API at /metrics)',
      '    Host            127.0.0.1 (also localhost and [::1])',
      '    variant         host (/metrics/host/:host)',
      '    handlers        service_api_metrics, service_api_users (service_api_users not implemented)',
      '  handler group (listen.http[0].handlers.service_api[1])',
      '    prefix          /users/',
      '    Host            _ (any host)',
      '    variant         host_type (/users/metrics/host_type/:host_type)',
      '    handlers        service_api_users (serves nothing: only service_api_metrics is implemented)',
      'listener (listen.http[1])',
      '  address           0.0.0.0 (reachable from other machines; the API has no authentication)',
      '  port              5288',
      '  num_acceptors     100 (no effect on Node)',
      '  max_connections   1024',
      '  handler group (listen.http[1].handlers.service_api[0])',
      '    prefix          /api/ (the API at /api/metrics)',
      '    Host            metrics.example.com',
      '    variant         host_type (/api/metrics/host_type/:host_type)',
      '    handlers        service_api_metrics',
    ]);
  });

  it('should say when no listener serves the API', () => {
    expect(
      describeConfig(
        parseLegacyApiConfig(
          '[general]\n  hosts = ["localhost"]\n',
          'plain.toml'
        )
      )
    ).toEqual([
      'plain.toml: valid TOML configuration: no listener serves the legacy metrics API',
    ]);
    const usersOnly =
      '{listen, [{5288, http_listener, [{modules, [{"_", "/api", service_api, [{handlers, [service_api_users]}]}]}]}]}.';
    expect(
      describeConfig(parseLegacyApiConfig(usersOnly, 'users.cfg'))[0]
    ).toBe(
      'users.cfg: valid Erlang-term configuration: 1 listener, but no handler group lists service_api_metrics: nothing is served'
    );
  });
});
