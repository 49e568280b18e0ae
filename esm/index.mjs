// ES module entry point: re-exports the CommonJS build, so both module systems share one
// instance of every class (instanceof and the reader's state work across them).
import cjs from '../dist/src/index.js';

export const {
  ConfigError,
  HOST_ATTRIBUTE,
  HOST_TYPE_ATTRIBUTE,
  InvalidOptionError,
  LegacyApiError,
  LegacyClusterAggregator,
  LegacyMetricsReader,
  ListenError,
  PACKAGE_METER_NAME,
  USAGE_VIEWS,
  createClusterPrimaryWithLegacyApi,
  createClusterPrometheusReader,
  createMeterProviderWithLegacyApi,
  legacyMetricsApi,
  legacyMetricsRequestListener,
  loadLegacyApiConfig,
  parseLegacyApiConfig,
  startLegacyMetricsListeners,
  startLegacyMetricsServer,
} = cjs;
