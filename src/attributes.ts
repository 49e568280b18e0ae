/**
 * The attribute keys that place a data point under a host type or a host, and the
 * two flavours of the legacy API that follow from them.
 */

/** Attribute naming the host type (domain group) of a per-host-type data point. */
export const HOST_TYPE_ATTRIBUTE = 'host_type';

/** Attribute naming the host (domain) of a per-host data point. */
export const HOST_ATTRIBUTE = 'host';

/**
 * Which flavour of the legacy API to serve: `host_type` (the newer `/host_type/:host_type`
 * routes, listing key `host_types`) or `host` (the older `/host/:host` routes, listing key `hosts`).
 */
export type Variant = 'host_type' | 'host';

/** Every variant, in the order they are documented. */
export const VARIANTS: readonly Variant[] = ['host_type', 'host'];

/**
 * The meter scope of the package's own usage telemetry. The legacy reader leaves it out: those
 * instruments are for Prometheus and OTLP.
 */
export const PACKAGE_METER_NAME = 'otel-legacy-metrics-api';
