/**
 * The `OTEL_*` environment variables of the OpenTelemetry specification that the one-call
 * setup reads. An empty variable counts as unset, and an invalid one is ignored with a warning,
 * as the specification asks; only a protocol this package cannot speak is refused.
 */
import { diag } from '@opentelemetry/api';
import { InvalidOptionError } from '../errors';
import { EXPECTED_OPTION, isPort } from '../optionValidation';
import { PROTOCOLS, type OtlpProtocol } from './options';

/** An environment variable; empty means unset, as the OpenTelemetry specification requires. */
export function fromEnv(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A duration from the environment; an invalid one is ignored with a warning. */
export function millisFromEnv(name: string): number | undefined {
  const raw = fromEnv(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (Number.isSafeInteger(value) && value > 0) return value;
  diag.warn(
    `${name} must be a positive integer of milliseconds (got ${JSON.stringify(raw)}); using the default`
  );
  return undefined;
}

/** A port from the environment; an invalid one is ignored with a warning. */
export function portFromEnv(name: string): number | undefined {
  const raw = fromEnv(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (isPort(value)) return value;
  diag.warn(
    `${name} must be ${EXPECTED_OPTION.port} (got ${JSON.stringify(raw)}); using the default`
  );
  return undefined;
}

/**
 * The OTLP protocol the environment names, if any.
 * @throws InvalidOptionError for a protocol this package cannot send (gRPC)
 */
export function protocolFromEnv(): OtlpProtocol | undefined {
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
        'for an OpenTelemetry Collector, use http/protobuf on its port 4318',
      { option: name, found: raw, expected: '"http/protobuf" or "http/json"' }
    );
  }
  return undefined;
}
