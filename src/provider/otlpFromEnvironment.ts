/**
 * OTLP settings from the `OTEL_*` environment variables of the OpenTelemetry specification,
 * under the options given in code (which win), and the exporter they describe.
 */
import { diag } from '@opentelemetry/api';
import type * as OtlpHttpModule from '@opentelemetry/exporter-metrics-otlp-http';
import type * as OtlpProtoModule from '@opentelemetry/exporter-metrics-otlp-proto';
import { loadOptionalPeer } from './optionalPeer';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { InvalidOptionError } from '../errors';
import {
  DEFAULT_METER_PROVIDER_OPTIONS,
  PROTOCOLS,
  type CheckedOtlp,
  type OtlpProtocol,
} from './options';

/** OTLP as it will run. */
export interface ResolvedOtlp {
  readonly url: string | undefined;
  readonly protocol: OtlpProtocol;
  readonly exportIntervalMillis: number;
  readonly exportTimeoutMillis: number;
}

/** An environment variable; empty means unset, as the OpenTelemetry specification requires. */
export function fromEnv(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A duration from the environment; an invalid one is ignored with a warning, as the specification asks. */
function millisFromEnv(name: string): number | undefined {
  const raw = fromEnv(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (Number.isSafeInteger(value) && value > 0) return value;
  diag.warn(
    `${name} must be a positive integer of milliseconds (got ${JSON.stringify(raw)}); using the default`
  );
  return undefined;
}

function protocolFromEnv(): OtlpProtocol | undefined {
  for (const name of [
    'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
    'OTEL_EXPORTER_OTLP_PROTOCOL',
  ]) {
    const raw = fromEnv(name);
    if (raw === undefined) continue;
    if ((PROTOCOLS as readonly string[]).includes(raw))
      return raw as OtlpProtocol;
    // Falling back would post HTTP to what is most likely a gRPC port: refuse instead.
    throw new InvalidOptionError(
      `${name} must be "http/protobuf" or "http/json" (got ${JSON.stringify(raw)}); ` +
        'for an OpenTelemetry Collector, use http/protobuf on its port 4318'
    );
  }
  return undefined;
}

/** OTLP with the environment under the options; undefined when it is off. */
export function resolveOtlp(otlp: CheckedOtlp): ResolvedOtlp | undefined {
  const on =
    otlp.enabled === 'auto'
      ? otlp.url !== undefined ||
        fromEnv('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') !== undefined ||
        fromEnv('OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined
      : otlp.enabled;
  if (!on) return undefined;
  const defaults = DEFAULT_METER_PROVIDER_OPTIONS.otlp;
  const exportIntervalMillis =
    otlp.exportIntervalMillis ??
    millisFromEnv('OTEL_METRIC_EXPORT_INTERVAL') ??
    defaults.exportIntervalMillis;
  const configuredTimeout =
    otlp.exportTimeoutMillis ??
    millisFromEnv('OTEL_METRIC_EXPORT_TIMEOUT') ??
    defaults.exportTimeoutMillis;
  return {
    url: otlp.url,
    protocol: otlp.protocol ?? protocolFromEnv() ?? defaults.protocol,
    exportIntervalMillis,
    // The SDK requires timeout <= interval; a default or environment timeout follows a shorter interval.
    exportTimeoutMillis: Math.min(configuredTimeout, exportIntervalMillis),
  };
}

/** The OTLP exporter of a protocol; it reads its own `OTEL_EXPORTER_OTLP_*` variables. */
export function createOtlpExporter(otlp: ResolvedOtlp): PushMetricExporter {
  const config = otlp.url === undefined ? {} : { url: otlp.url };
  // Each exporter is an optional peer, loaded only for the protocol in use.
  return otlp.protocol === 'http/json'
    ? new (loadOptionalPeer<typeof OtlpHttpModule>(
        '@opentelemetry/exporter-metrics-otlp-http',
        'OTLP over http/json'
      ).OTLPMetricExporter)(config)
    : new (loadOptionalPeer<typeof OtlpProtoModule>(
        '@opentelemetry/exporter-metrics-otlp-proto',
        'OTLP over http/protobuf'
      ).OTLPMetricExporter)(config);
}
