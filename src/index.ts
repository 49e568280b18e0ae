export { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE, VARIANTS } from './attributes';
export type { Variant } from './attributes';
export { loadLegacyApiConfig, parseLegacyApiConfig } from './config/loadLegacyApiConfig';
export { CONFIG_DEFAULTS, KNOWN_HANDLERS } from './config/types';
export type { HandlerGroupConfig, KnownHandler, LegacyApiConfig, ListenerConfig } from './config/types';
export {
  createMeterProviderWithLegacyApi,
  DEFAULT_METER_PROVIDER_OPTIONS,
} from './createMeterProviderWithLegacyApi';
export type {
  MeterProviderWithLegacyApi,
  MeterProviderWithLegacyApiOptions,
  OtlpOptions,
  OtlpProtocol,
  PrometheusEndpointOptions,
} from './createMeterProviderWithLegacyApi';
export { ConfigError, InvalidOptionError, LegacyApiError, ListenError } from './errors';
export { LegacyMetricsReader } from './LegacyMetricsReader';
export { ALLOWED_METHODS, legacyMetricsApi } from './legacyMetricsApi';
export type { LegacyMetricsApiOptions } from './legacyMetricsApi';
export { DEFAULT_READER_OPTIONS } from './options';
export type { LegacyMetricsReaderOptions, LegacyNameFunction } from './options';
export { Snapshot } from './Snapshot';
export type { LegacyResponse } from './Snapshot';
export { DEFAULT_SERVER_OPTIONS, startLegacyMetricsServer } from './startLegacyMetricsServer';
export type { LegacyMetricsServer, LegacyMetricsServerOptions } from './startLegacyMetricsServer';
export { startLegacyMetricsListeners } from './startLegacyMetricsListeners';
export type {
  LegacyMetricsListeners,
  LegacyMetricsListenersOptions,
  RunningLegacyListener,
} from './startLegacyMetricsListeners';
