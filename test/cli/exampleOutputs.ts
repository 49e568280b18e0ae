/** What `legacy-metrics-api check-config` prints for each example configuration file, by name. */
export const EXAMPLE_OUTPUTS: [string, string[]][] = [
  [
    'examples/server.toml',
    [
      'examples/server.toml: valid TOML configuration: 1 listener, 1 handler group serving the legacy metrics API',
      'listener (listen.http[0])',
      '  address           127.0.0.1',
      '  port              8088',
      '  num_acceptors     10 (no effect on Node)',
      '  max_connections   1024',
      '  handler group (listen.http[0].handlers.service_api[0])',
      '    prefix          /api (the API at /api/metrics)',
      '    Host            localhost (also 127.0.0.1 and [::1])',
      '    variant         host_type (/api/metrics/host_type/:host_type)',
      '    handlers        service_api_metrics',
    ],
  ],
  [
    'examples/server.cfg',
    [
      'examples/server.cfg: valid Erlang-term configuration: 1 listener, 1 handler group serving the legacy metrics API',
      'listener (line 21, column 3)',
      '  address           127.0.0.1',
      '  port              8088',
      '  num_acceptors     10 (no effect on Node)',
      '  max_connections   1024',
      '  handler group (line 28, column 11)',
      '    prefix          /api (the API at /api/metrics)',
      '    Host            localhost (also 127.0.0.1 and [::1])',
      '    variant         host_type (/api/metrics/host_type/:host_type)',
      '    handlers        service_api_metrics',
    ],
  ],
];
