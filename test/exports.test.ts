import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as api from '../src';

/** The public API: adding or removing a name is a deliberate change to this list. */
const EXPECTED_EXPORTS = [
  'ConfigError',
  'HOST_ATTRIBUTE',
  'HOST_TYPE_ATTRIBUTE',
  'InvalidOptionError',
  'LegacyApiError',
  'LegacyClusterAggregator',
  'LegacyMetricsReader',
  'ListenError',
  'PACKAGE_METER_NAME',
  'USAGE_VIEWS',
  'createClusterPrimaryWithLegacyApi',
  'createClusterPrometheusReader',
  'createMeterProviderWithLegacyApi',
  'legacyMetricsApi',
  'legacyMetricsRequestListener',
  'loadLegacyApiConfig',
  'parseLegacyApiConfig',
  'startLegacyMetricsListeners',
  'startLegacyMetricsServer',
].sort();

const root = resolve(__dirname, '..');

/** Runs a script as a package consumer would: from a folder where the package resolves by its name. */
function consume(fileName: string, source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'olma-consumer-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(
      root,
      join(dir, 'node_modules', 'otel-legacy-metrics-api'),
      'dir'
    );
    // The peer dependencies, installed beside the package as a consumer's would be.
    symlinkSync(
      join(root, 'node_modules', '@opentelemetry'),
      join(dir, 'node_modules', '@opentelemetry'),
      'dir'
    );
    writeFileSync(join(dir, fileName), source);
    // The consumer runs on the Node that runs these tests (the project's Node 24).
    return execFileSync(process.execPath, [join(dir, fileName)], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 20_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('package exports', () => {
  it('should export exactly the public API from src/index.ts', () => {
    expect(Object.keys(api).sort()).toEqual(EXPECTED_EXPORTS);
    // What an application needs, and nothing the package only uses inside.
    expect(EXPECTED_EXPORTS.length).toBeLessThanOrEqual(20);
  });

  it('should resolve by its own name from CommonJS with the same names', () => {
    const out = consume(
      'consumer.cjs',
      "console.log(JSON.stringify(Object.keys(require('otel-legacy-metrics-api')).sort()));"
    );
    expect(JSON.parse(out)).toEqual(EXPECTED_EXPORTS);
  });

  it('should resolve by its own name from ESM with the same names and working classes', () => {
    const out = consume(
      'consumer.mjs',
      [
        "import * as api from 'otel-legacy-metrics-api';",
        "import { LegacyMetricsReader } from 'otel-legacy-metrics-api';",
        "import { MeterProvider } from '@opentelemetry/sdk-metrics';",
        'const reader = new LegacyMetricsReader();',
        'const provider = new MeterProvider({ readers: [reader] });',
        "provider.getMeter('m').createCounter('c').add(2, { host_type: 'h' });",
        'await reader.forceFlush();',
        "const res = reader.snapshot.respond('host_type', ['metrics', 'all', 'c'], { contentType: 'application/json', listing() {}, metrics() {}, metric: (v) => JSON.stringify(v.numbers), error: (c) => c });",
        'await provider.shutdown();',
        'console.log(JSON.stringify({ names: Object.keys(api).filter((k) => k !== "default").sort(), body: res.body.toString() }));',
      ].join('\n')
    );
    const result = JSON.parse(out) as { names: string[]; body: string };
    expect(result.names).toEqual(EXPECTED_EXPORTS);
    expect(result.body).toBe('[2,2]');
  });
});
