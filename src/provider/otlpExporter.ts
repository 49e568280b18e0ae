/** The OTLP exporter of the resolved OTLP settings, from the optional peer of its protocol. */
import type * as OtlpHttpModule from '@opentelemetry/exporter-metrics-otlp-http';
import type * as OtlpProtoModule from '@opentelemetry/exporter-metrics-otlp-proto';
import { loadOptionalPeer } from './optionalPeer';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { ResolvedOtlp } from './resolveOptions';

/** The OTLP exporter of a protocol; it reads its own `OTEL_EXPORTER_OTLP_*` variables. */
export function createOtlpExporter(otlp: ResolvedOtlp): PushMetricExporter {
  const config = otlp.url === undefined ? {} : { url: otlp.url };
  // Each exporter is an optional peer, loaded only for the protocol in use.
  return otlp.protocol === 'http/json'
    ? new (loadOptionalPeer<typeof OtlpHttpModule>(
        '@opentelemetry/exporter-metrics-otlp-http',
        'otlp.protocol',
        'OTLP over http/json'
      ).OTLPMetricExporter)(config)
    : new (loadOptionalPeer<typeof OtlpProtoModule>(
        '@opentelemetry/exporter-metrics-otlp-proto',
        'otlp.protocol',
        'OTLP over http/protobuf'
      ).OTLPMetricExporter)(config);
}
