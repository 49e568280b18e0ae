export {
  HOST_ATTRIBUTE,
  HOST_TYPE_ATTRIBUTE,
  PACKAGE_METER_NAME,
  type Variant,
} from './attributes';
export {
  loadLegacyApiConfig,
  parseLegacyApiConfig,
} from './config/loadLegacyApiConfig';
export type {
  BrownoutOptions,
  DeprecationOptions,
} from './config/deprecationOptions';
export type {
  HandlerGroupConfig,
  KnownHandler,
  LegacyApiConfig,
  ListenerConfig,
  ListenerTimeouts,
} from './config/types';
export {
  createMeterProviderWithLegacyApi,
  type LegacyApiProviderOptions,
  type MeterProviderWithLegacyApi,
  type MeterProviderWithLegacyApiOptions,
  type OtlpOptions,
  type OtlpProtocol,
  type PrometheusEndpointOptions,
} from './provider/createMeterProviderWithLegacyApi';
export {
  ConfigError,
  InvalidOptionError,
  LegacyApiError,
  ListenError,
  type InvalidOptionDetails,
  type LegacyApiErrorCode,
} from './errors';
export {
  LegacyMetricsReader,
  type TickSlices,
} from './reader/LegacyMetricsReader';
export type { ServingStatus } from './reader/ServedStore';
export { LegacyClusterAggregator } from './cluster/LegacyClusterAggregator';
export type { LegacyClusterAggregatorOptions } from './cluster/options';
export {
  createClusterPrimaryWithLegacyApi,
  type ClusterPrimaryWithLegacyApi,
  type ClusterPrimaryWithLegacyApiOptions,
} from './cluster/createClusterPrimaryWithLegacyApi';
export {
  createClusterPrometheusReader,
  type ClusterPrometheusReaderOptions,
} from './cluster/clusterPrometheusReader';
export type { LegacySnapshotSource } from './http/LegacySnapshotSource';
export {
  legacyMetricsApi,
  type LegacyMetricsApiOptions,
} from './http/legacyMetricsApi';
export {
  legacyMetricsRequestListener,
  type LegacyMetricsRequestListener,
  type LegacyMetricsRequestListenerOptions,
} from './http/legacyMetricsRequestListener';
export type { LegacyApiDeprecationOptions } from './http/deprecation';
export { USAGE_VIEWS } from './http/usageInstruments';
export type { LegacyApiUsageOptions, UsageOptions } from './http/usageOptions';
export type {
  LegacyMetricsReaderOptions,
  LegacyNameFunction,
} from './reader/options';
export type {
  MeterPattern,
  MeterScope,
  MeterSelection,
} from './reader/meterSelection';
export type { LegacyResponse, Snapshot } from './snapshot/Snapshot';
export {
  startLegacyMetricsServer,
  type LegacyMetricsServer,
  type LegacyMetricsServerOptions,
} from './http/startLegacyMetricsServer';
export {
  startLegacyMetricsListeners,
  type LegacyMetricsListeners,
  type LegacyMetricsListenersOptions,
  type RunningLegacyListener,
} from './http/startLegacyMetricsListeners';
