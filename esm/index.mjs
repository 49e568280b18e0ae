// ES module entry point: re-exports the CommonJS build, so both module systems share one
// instance of every class (instanceof and the reader's state work across them).
import cjs from '../dist/src/index.js';

export const {
  ALLOWED_METHODS,
  CONFIG_DEFAULTS,
  ConfigError,
  DEFAULT_LISTENER_TIMEOUTS,
  DEFAULT_METER_PROVIDER_OPTIONS,
  DEFAULT_READER_OPTIONS,
  DEFAULT_SERVER_OPTIONS,
  DEFAULT_USAGE_OPTIONS,
  HOST_ATTRIBUTE,
  HOST_TYPE_ATTRIBUTE,
  IN_BAND_METRIC_NAME,
  InvalidOptionError,
  KNOWN_HANDLERS,
  LegacyApiError,
  LegacyMetricsReader,
  ListenError,
  OTHER_CLIENT,
  PACKAGE_METER_NAME,
  USAGE_INSTRUMENTS,
  USAGE_VIEWS,
  VARIANTS,
  createMeterProviderWithLegacyApi,
  legacyMetricsApi,
  loadLegacyApiConfig,
  parseLegacyApiConfig,
  startLegacyMetricsListeners,
  startLegacyMetricsServer,
} = cjs;
