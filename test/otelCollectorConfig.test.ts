import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { DEFAULT_METER_PROVIDER_OPTIONS } from '../src/provider/createMeterProviderWithLegacyApi';

/**
 * otel-collector.yaml is checked for structure (there is no collector binary here): every
 * component a pipeline or the service uses is declared, every declared component is used, and
 * every address binds loopback. Component ids are `type` or `type/name`, as in the collector's
 * configuration reference (https://opentelemetry.io/docs/collector/configuration/).
 */

const FILE = join(__dirname, '..', 'otel-collector.yaml');
const LOOPBACK_HOST = /^(?:127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;
const SECTIONS = ['receivers', 'processors', 'exporters'] as const;

type Components = Record<string, Record<string, unknown> | null>;
interface Pipeline {
  receivers?: string[];
  processors?: string[];
  exporters?: string[];
}
interface CollectorConfig {
  extensions?: Components;
  receivers: Components;
  processors: Components;
  exporters: Components;
  service: { extensions?: string[]; pipelines: Record<string, Pipeline> };
}

const document = parseDocument(readFileSync(FILE, 'utf8'), {
  uniqueKeys: true,
  strict: true,
  prettyErrors: true,
});
const config = document.toJS() as CollectorConfig;
const pipelines = Object.entries(config.service?.pipelines ?? {});

/** Every `endpoint` value and scrape target in the file, with where it is. */
function addresses(
  value: unknown,
  path: string,
  out: Array<[string, string]> = []
): Array<[string, string]> {
  if (Array.isArray(value)) {
    value.forEach((item, i) => addresses(item, `${path}[${i}]`, out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      const where = `${path}.${key}`;
      if (key === 'endpoint' && typeof child === 'string')
        out.push([where, child]);
      else if (key === 'targets' && Array.isArray(child))
        child.forEach((t, i) => out.push([`${where}[${i}]`, String(t)]));
      else addresses(child, where, out);
    }
  }
  return out;
}

/** The host of `host:port`, `[v6]:port` or a URL. */
function hostOf(address: string): string {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return url.hostname;
}

describe('otel-collector.yaml', () => {
  it('should parse as YAML without errors or warnings', () => {
    expect(document.errors.map(String)).toEqual([]);
    expect(document.warnings.map(String)).toEqual([]);
    expect(Object.keys(config).sort()).toEqual([
      'exporters',
      'extensions',
      'processors',
      'receivers',
      'service',
    ]);
  });

  describe.each(pipelines)('pipeline %s', (name, pipeline) => {
    it.each(SECTIONS)('should use only declared %s', section => {
      const used = pipeline[section] ?? [];
      expect(used.length).toBeGreaterThan(section === 'processors' ? 1 : 0);
      for (const id of used)
        expect({
          pipeline: name,
          [section]: id,
          declared: id in (config[section] ?? {}),
        }).toEqual({
          pipeline: name,
          [section]: id,
          declared: true,
        });
    });

    it('should run memory_limiter first and batch last', () => {
      const processors = pipeline.processors ?? [];
      expect(processors[0]).toBe('memory_limiter');
      expect(processors.at(-1)).toBe('batch');
    });

    it('should be a metrics pipeline', () => {
      expect(name).toMatch(/^metrics(?:\/[\w-]+)?$/);
    });
  });

  it('should use every declared receiver, processor and exporter', () => {
    for (const section of SECTIONS) {
      const used = new Set(pipelines.flatMap(([, p]) => p[section] ?? []));
      expect({
        section,
        unused: Object.keys(config[section]).filter(id => !used.has(id)),
      }).toEqual({ section, unused: [] });
    }
  });

  it('should declare every extension the service uses, and use every declared one', () => {
    expect([...(config.service.extensions ?? [])].sort()).toEqual(
      Object.keys(config.extensions ?? {}).sort()
    );
  });

  it('should receive OTLP over gRPC and HTTP, and export to prometheus and debug', () => {
    const otlp = pipelines.find(([, p]) => p.receivers?.includes('otlp'));
    expect(otlp).toBeDefined();
    expect(
      Object.keys(
        (config.receivers.otlp as { protocols: object }).protocols
      ).sort()
    ).toEqual(['grpc', 'http']);
    expect(otlp![1].exporters).toEqual(
      expect.arrayContaining(['prometheus', 'debug'])
    );
  });

  it("should have a second pipeline that scrapes a node's in-process exporter", () => {
    const scrape = pipelines.find(([, p]) =>
      p.receivers?.includes('prometheus')
    );
    expect(scrape).toBeDefined();
    const receiver = config.receivers.prometheus as {
      config: {
        scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
      };
    };
    const targets = receiver.config.scrape_configs.flatMap(c =>
      c.static_configs.flatMap(s => s.targets)
    );
    expect(targets).toContain(
      `${DEFAULT_METER_PROVIDER_OPTIONS.prometheus.address}:${DEFAULT_METER_PROVIDER_OPTIONS.prometheus.port}`
    );
    expect(scrape![1].exporters).toEqual(
      expect.arrayContaining(['prometheus'])
    );
  });

  it('should bind every endpoint and target to loopback by default', () => {
    const found = addresses(config, 'config');
    expect(found.length).toBeGreaterThanOrEqual(5);
    for (const [where, address] of found)
      expect({
        where,
        host: hostOf(address),
        loopback: LOOPBACK_HOST.test(hostOf(address)),
      }).toEqual({
        where,
        host: hostOf(address),
        loopback: true,
      });
  });

  it('should listen for OTLP on the standard ports 4317 (gRPC) and 4318 (HTTP)', () => {
    const protocols = (
      config.receivers.otlp as {
        protocols: Record<string, { endpoint: string }>;
      }
    ).protocols;
    expect(protocols.grpc!.endpoint).toMatch(/:4317$/);
    expect(protocols.http!.endpoint).toMatch(/:4318$/);
  });
});
