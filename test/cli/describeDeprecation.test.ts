import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLegacyApiConfig } from '../../src';
import { describeConfig } from '../../src/cli/checkConfigCommand';
import { startDemo, type RunningDemo } from '../../src/cli/demoCommand';
import { describeDeprecation } from '../../src/cli/describeDeprecation';

const EXAMPLE = join(__dirname, '..', '..', 'examples', 'server.toml');

/** examples/server.toml with its commented deprecation block switched on. */
function exampleWithDeprecation(): string {
  const text = readFileSync(EXAMPLE, 'utf8');
  const enabled = text
    .replace(
      /^ {4}# (\[listen\.http\.handlers\.service_api\.deprecation\])/m,
      '    $1'
    )
    .replace(
      /^ {4}# {3}(since|sunset|successor|documentation|in_band|enforce_sunset) /gm,
      '      $1 '
    )
    .replace(/^ {4}# {3}(\[\[listen)/gm, '      $1')
    .replace(/^ {4}# {5}(start|duration) /gm, '        $1 ');
  expect(enabled).not.toBe(text);
  return enabled;
}

describe('describeDeprecation', () => {
  it('should print nothing for a group without a deprecation', () => {
    expect(describeDeprecation(undefined, '  ', 18)).toEqual([]);
  });

  it("should print the example's deprecation block, once uncommented, in check-config", () => {
    const config = parseLegacyApiConfig(
      exampleWithDeprecation(),
      'server.toml'
    );
    expect(describeConfig(config).slice(-6)).toEqual([
      '    deprecation     since 2026-01-01T00:00:00Z (header Deprecation: @1767225600)',
      '    sunset          2026-12-31T00:00:00Z (every request answers 410 Gone from then on; days left served in-band as legacyApiSunsetDays)',
      '    successor       http://127.0.0.1:9464/metrics',
      '    documentation   https://example.com/legacy-api-end',
      '    brownouts       2026-10-01T10:00:00Z to 2026-10-01T10:30:00Z (PT30M, GET and HEAD answer 410 Gone)',
      '                    2026-11-03T10:00:00Z to 2026-11-03T12:00:00Z (PT2H, GET and HEAD answer 410 Gone)',
    ]);
  });

  it('should say what is left out and name the default successor', () => {
    expect(
      describeDeprecation(
        { since: '2026-01-01', sunset: '2026-06-30' },
        '  ',
        18,
        'http://127.0.0.1:9464/metrics'
      )
    ).toEqual([
      '  deprecation       since 2026-01-01T00:00:00Z (header Deprecation: @1767225600)',
      '  sunset            2026-06-30T00:00:00Z (announced only: the API keeps answering)',
      '  successor         http://127.0.0.1:9464/metrics (the Prometheus endpoint)',
      '  brownouts         none',
    ]);
    expect(describeDeprecation({ since: '2026-01-01' }, '', 12)).toEqual([
      'deprecation since 2026-01-01T00:00:00Z (header Deprecation: @1767225600)',
      'sunset      none announced',
      'successor   none named (createMeterProviderWithLegacyApi and the demo name their Prometheus URL)',
      'brownouts   none',
    ]);
  });
});

describe('startDemo with a deprecation', () => {
  let demo: RunningDemo | undefined;

  afterEach(async () => {
    await demo?.stop();
    demo = undefined;
  });

  it('should print the schedule at start and name its Prometheus URL as the successor', async () => {
    const config = parseLegacyApiConfig(
      `[[listen.http]]
  port = 0
  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/api"
    [listen.http.handlers.service_api.deprecation]
      since = 2026-01-01
`,
      'deprecated.toml'
    );
    const lines: string[] = [];
    demo = await startDemo({
      config,
      prometheus: { port: 0 },
      out: line => lines.push(line),
    });
    const prometheusUrl = demo.prometheusUrl;
    expect(lines.slice(1, 5)).toEqual([
      '  deprecation       since 2026-01-01T00:00:00Z (header Deprecation: @1767225600)',
      '  sunset            none announced',
      `  successor         ${prometheusUrl} (the Prometheus endpoint)`,
      '  brownouts         none',
    ]);
    const res = await fetch(demo.listeners[0]!.metricsUrl);
    await res.arrayBuffer();
    expect(res.headers.get('link')).toBe(
      `<${prometheusUrl}>; rel="successor-version"`
    );
  });
});
