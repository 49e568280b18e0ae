/**
 * The Prometheus endpoint: the official exporter with the legacy reader's cardinality limit,
 * served as a route on the caller's fastify app or on a listener of its own, which is started
 * through the same listen path as the legacy API's listeners (bound address, ListenError,
 * exposure warning, timeouts, Host check, error shapes).
 */
import type * as PrometheusModule from '@opentelemetry/exporter-prometheus';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { InstrumentType } from '@opentelemetry/sdk-metrics';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidOptionError } from '../errors';
import { sendError } from '../http/errorResponse';
import { hostConstraints } from '../http/hostConstraint';
import { baseUrl, createListenerApp, listenApp } from '../http/listen';
import { loadOptionalPeer } from './optionalPeer';
import type { PrometheusExporterOptions } from './options';
import type { ResolvedPrometheus } from './resolveOptions';

const EXPOSITION_METHODS = 'GET, HEAD';

/**
 * The official exporter with the legacy reader's cardinality limit. The exporter's configuration
 * has no cardinality option, and the SDK's default (2000 per instrument) would fold host types
 * beyond it into an overflow series that the legacy API does not show. The exporter is an
 * optional peer, so the subclass is made once it is loaded.
 */
export function createPrometheusExporter(
  limit: (type: InstrumentType) => number,
  options: PrometheusExporterOptions
): PrometheusExporter {
  const { PrometheusExporter } = loadOptionalPeer<typeof PrometheusModule>(
    '@opentelemetry/exporter-prometheus',
    'prometheus',
    'prometheus (on unless `prometheus: false`)'
  );
  class PrometheusExporterWithLimit extends PrometheusExporter {
    constructor() {
      // Serving is done here: the exporter's own server reads port 0 as 9464 and cannot say what it bound.
      super({ ...options, preventServerStart: true });
    }

    override selectCardinalityLimit(instrumentType: InstrumentType): number {
      return limit(instrumentType);
    }
  }
  return new PrometheusExporterWithLimit();
}

/** A served exposition. */
export interface PrometheusEndpoint {
  /** The URL of a listener of its own; undefined when mounted on the caller's app. */
  readonly url: string | undefined;
  /** Answers 503 from now on and closes the listener of its own. */
  close(): Promise<void>;
}

/**
 * Serves the exposition as the options say. A mounted route is added at once; a listener of
 * its own is bound before this resolves.
 * @throws InvalidOptionError when the caller's app cannot take the route
 * @throws ListenError when the listener cannot bind
 */
export async function servePrometheus(
  exporter: Pick<PrometheusExporter, 'getMetricsRequestHandler'>,
  prometheus: ResolvedPrometheus
): Promise<PrometheusEndpoint> {
  let stopped = false;
  const handler = (request: FastifyRequest, reply: FastifyReply): void => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply.header('allow', EXPOSITION_METHODS);
      sendError(
        request,
        reply,
        405,
        `${request.method} is not allowed; allowed: ${EXPOSITION_METHODS}`,
        'json'
      );
      return;
    }
    if (stopped) {
      sendError(request, reply, 503, 'the meter provider is shut down', 'json');
      return;
    }
    reply.hijack();
    exporter.getMetricsRequestHandler(request.raw, reply.raw);
  };

  if (prometheus.app !== undefined) {
    try {
      prometheus.app.route({
        method: 'GET',
        url: prometheus.endpoint,
        handler,
      });
    } catch (error) {
      throw new InvalidOptionError(
        `prometheus.app: cannot take the route ${prometheus.endpoint} (${(error as Error).message})`,
        {
          option: 'prometheus.app',
          found: prometheus.app,
          expected: `a fastify app that can take the route ${prometheus.endpoint}`,
        }
      );
    }
    return {
      url: undefined,
      close: async () => {
        stopped = true;
      },
    };
  }

  const { address, port, allowedHost, timeouts } = prometheus.listener;
  // No connection cap: the exposition is scraped by a few.
  const app: FastifyInstance = createListenerApp({ timeouts });
  app.route({
    method: app.supportedMethods,
    url: prometheus.endpoint,
    handler,
    exposeHeadRoute: false,
    ...hostConstraints(app, allowedHost),
  });
  const bound = await listenApp(
    app,
    address,
    port,
    'prometheus',
    'Prometheus exposition'
  );
  // Scraping alone must not keep the process alive.
  app.server.unref();
  let closing: Promise<void> | undefined;
  return {
    url: `${baseUrl(bound.address, bound.port)}${prometheus.endpoint}`,
    close: () =>
      (closing ??= (async () => {
        stopped = true;
        await app.close();
      })()),
  };
}
