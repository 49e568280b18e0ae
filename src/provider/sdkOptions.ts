/**
 * The options the one-call setup passes on to the OpenTelemetry SDK and to the Prometheus
 * exporter (views, extra readers, the exporter's own settings), checked before anything is
 * built, each error naming the option's path.
 */
import {
  MeterProvider,
  type IMetricReader,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import {
  booleanOption,
  checkOptionObject,
  invalidOption,
  isPlainObject,
  optionPath,
} from '../optionValidation';
import type { PrometheusExporterOptions } from './options';

/** The fields of the SDK's ViewOptions. */
const VIEW_KEYS = [
  'name',
  'description',
  'attributesProcessors',
  'aggregation',
  'aggregationCardinalityLimit',
  'instrumentType',
  'instrumentName',
  'instrumentUnit',
  'meterName',
  'meterVersion',
  'meterSchemaUrl',
];
/** What a reader must have for the SDK to drive it. */
const READER_METHODS = [
  'setMetricProducer',
  'collect',
  'forceFlush',
  'shutdown',
];

/** The keys of {@link PrometheusExporterOptions}, allowed in `prometheus`. */
export const EXPORTER_KEYS = [
  'prefix',
  'appendTimestamp',
  'withResourceConstantLabels',
  'withoutScopeInfo',
  'withoutTargetInfo',
  'metricProducers',
];

/** The items of the array option at `path`; none when it is left out. */
function itemsOf(path: string, value: unknown, expected: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) invalidOption(path, value, expected);
  return value;
}

/** The `views` option: each an object of known fields that the SDK accepts. */
export function viewsOption(value: unknown): ViewOptions[] {
  const views = itemsOf('views', value, 'an array of view options');
  views.forEach((view, index) => {
    const path = optionPath('views', index);
    checkOptionObject(path, view, VIEW_KEYS, 'view options (an object)');
    try {
      // The SDK checks a view when a provider is built with it; one without readers costs nothing.
      new MeterProvider({ views: [view as ViewOptions] });
    } catch (error) {
      invalidOption(
        path,
        view,
        `a view the SDK accepts (${(error as Error).message})`
      );
    }
  });
  return views as ViewOptions[];
}

/** The `readers` option: metric readers, each given once. */
export function readersOption(value: unknown): IMetricReader[] {
  const readers = itemsOf('readers', value, 'an array of metric readers');
  readers.forEach((reader, index) => {
    const path = optionPath('readers', index);
    if (
      !isPlainObject(reader) ||
      !READER_METHODS.every(method => typeof reader[method] === 'function')
    ) {
      invalidOption(
        path,
        reader,
        'a metric reader, such as a PeriodicExportingMetricReader'
      );
    }
    if (readers.indexOf(reader) !== index) {
      invalidOption(
        path,
        reader,
        `each reader once (the same as readers[${readers.indexOf(reader)}])`
      );
    }
  });
  return readers as IMetricReader[];
}

/** The exporter's own options among `prometheus` (already checked for unknown keys). */
export function prometheusExporterOptions(
  given: Record<string, unknown>
): PrometheusExporterOptions {
  const { prefix, withResourceConstantLabels, metricProducers } = given;
  if (prefix !== undefined && typeof prefix !== 'string')
    invalidOption('prometheus.prefix', prefix, 'a string');
  for (const key of [
    'appendTimestamp',
    'withoutScopeInfo',
    'withoutTargetInfo',
  ])
    booleanOption(`prometheus.${key}`, given[key], false);
  if (
    withResourceConstantLabels !== undefined &&
    !(withResourceConstantLabels instanceof RegExp)
  ) {
    invalidOption(
      'prometheus.withResourceConstantLabels',
      withResourceConstantLabels,
      'a RegExp such as /service_.+/'
    );
  }
  if (
    metricProducers !== undefined &&
    !(
      Array.isArray(metricProducers) &&
      metricProducers.every(
        producer =>
          isPlainObject(producer) && typeof producer['collect'] === 'function'
      )
    )
  ) {
    invalidOption(
      'prometheus.metricProducers',
      metricProducers,
      'an array of MetricProducers (objects with a collect method)'
    );
  }
  // Only the options given: the exporter applies its own defaults to the others.
  return Object.fromEntries(
    EXPORTER_KEYS.filter(key => given[key] !== undefined).map(key => [
      key,
      given[key],
    ])
  ) as PrometheusExporterOptions;
}
