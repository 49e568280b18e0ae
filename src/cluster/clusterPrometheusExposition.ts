/**
 * The primary's Prometheus exposition: the aggregator's combined cumulative state, written by
 * the official exporter's own serializer, so that it reads exactly as one process's exporter.
 */
import type * as PrometheusModule from '@opentelemetry/exporter-prometheus';
import type { Resource } from '@opentelemetry/resources';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { loadOptionalPeer } from '../provider/optionalPeer';
import type { LegacyClusterAggregator } from './LegacyClusterAggregator';

/**
 * A handler that answers with the aggregator's exposition; the text is serialized once per
 * change of the workers' data, however many scrapes read it.
 */
export function clusterPrometheusExposition(
  aggregator: LegacyClusterAggregator,
  resource: Resource
): Pick<PrometheusModule.PrometheusExporter, 'getMetricsRequestHandler'> {
  const { PrometheusSerializer } = loadOptionalPeer<typeof PrometheusModule>(
    '@opentelemetry/exporter-prometheus',
    'prometheus',
    "the cluster primary's Prometheus endpoint (on unless `prometheus: false`)"
  );
  const serializer = new PrometheusSerializer();
  let serialized: ResourceMetrics | undefined;
  let text = '';
  return {
    getMetricsRequestHandler(_request, response) {
      const collected = aggregator.collectCumulative(resource);
      if (collected !== serialized) {
        text = serializer.serialize(collected);
        serialized = collected;
      }
      response.statusCode = 200;
      // As the exporter answers.
      response.setHeader('content-type', 'text/plain');
      response.end(text);
    },
  };
}
