export {
  HOST_ATTRIBUTE,
  HOST_TYPE_ATTRIBUTE,
  PACKAGE_METER_NAME,
} from './attributes';
export type { Variant } from './attributes';
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
} from './config/types';
export { createMeterProviderWithLegacyApi } from './provider/createMeterProviderWithLegacyApi';
export type {
  LegacyApiProviderOptions,
  MeterProviderWithLegacyApi,
  MeterProviderWithLegacyApiOptions,
  OtlpOptions,
  OtlpProtocol,
  PrometheusEndpointOptions,
} from './provider/createMeterProviderWithLegacyApi';
export {
  ConfigError,
  InvalidOptionError,
  LegacyApiError,
  ListenError,
} from './errors';
export type { InvalidOptionDetails, LegacyApiErrorCode } from './errors';
export { LegacyMetricsReader } from './reader/LegacyMetricsReader';
export type { TickSlices } from './reader/LegacyMetricsReader';
export type { ServingStatus } from './reader/ServedStore';
export { LegacyClusterAggregator } from './cluster/LegacyClusterAggregator';
export type { LegacyClusterAggregatorOptions } from './cluster/options';
export { createClusterPrimaryWithLegacyApi } from './cluster/createClusterPrimaryWithLegacyApi';
export { createClusterPrometheusReader } from './cluster/clusterPrometheusReader';
export type { ClusterPrometheusReaderOptions } from './cluster/clusterPrometheusReader';
export type {
  ClusterPrimaryWithLegacyApi,
  ClusterPrimaryWithLegacyApiOptions,
} from './cluster/createClusterPrimaryWithLegacyApi';
export type { LegacySnapshotSource } from './http/LegacySnapshotSource';
export { legacyMetricsApi } from './http/legacyMetricsApi';
export type { LegacyMetricsApiOptions } from './http/legacyMetricsApi';
export { legacyMetricsRequestListener } from './http/legacyMetricsRequestListener';
export type {
  LegacyMetricsRequestListener,
  LegacyMetricsRequestListenerOptions,
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
export { startLegacyMetricsServer } from './http/startLegacyMetricsServer';
export type {
  LegacyMetricsServer,
  LegacyMetricsServerOptions,
} from './http/startLegacyMetricsServer';
export { startLegacyMetricsListeners } from './http/startLegacyMetricsListeners';
export type { ListenerTimeouts } from './config/types';
export type {
  LegacyMetricsListeners,
  LegacyMetricsListenersOptions,
  RunningLegacyListener,
} from './http/startLegacyMetricsListeners';
