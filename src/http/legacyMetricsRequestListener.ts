import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { canonicalHost } from '../hostNames';
import { prefixOption } from '../optionValidation';
import { sendErrorWith } from './errorResponse';
import { ANY_HOST } from './hostConstraint';
import { NODE_ADAPTER } from './httpAdapter';
import { LegacyApiHandler } from './LegacyApiHandler';
import { resolveLegacyApiOptions } from './legacyApiOptions';
import type { LegacyMetricsApiOptions } from './legacyMetricsApi';
import type { LegacySnapshotSource } from './LegacySnapshotSource';

/** Options of {@link legacyMetricsRequestListener}: the plugin's, with `prefix`. */
export interface LegacyMetricsRequestListenerOptions extends Omit<
  LegacyMetricsApiOptions,
  'reader'
> {
  /**
   * The path the API's `/metrics` lies below, as the request's full URL has it (Express's
   * `originalUrl`, so that `app.use('/api', …)` takes `prefix: '/api'` too).
   * @default ''
   */
  prefix?: string;
}

/** A `node:http` request listener, Express middleware (with `next`) or Koa-style handler. */
export type LegacyMetricsRequestListener = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void
) => void;

/**
 * The legacy API as a request listener for `node:http` (`createServer(listener)`), Express
 * (`app.use(listener)`) and anything that hands over Node's request and response: the same routes,
 * statuses, headers, content negotiation, deprecation and usage telemetry as the
 * {@link legacyMetricsApi} plugin, from the same implementation. It answers `<prefix>/metrics`
 * and what lies below it (for the `allowedHost` option's Host only); any other request goes to `next`
 * when there is one, and otherwise gets the API's 404.
 *
 * Its usage telemetry and deprecation warnings run for as long as the process does.
 * @throws InvalidOptionError naming the option, e.g. `legacyMetricsRequestListener.variant`
 */
export function legacyMetricsRequestListener(
  reader: LegacySnapshotSource,
  options: LegacyMetricsRequestListenerOptions = {}
): LegacyMetricsRequestListener {
  const base = 'legacyMetricsRequestListener';
  const mount = resolveLegacyApiOptions(base, { ...options, reader }, [
    'prefix',
  ]);
  const normalized = prefixOption(`${base}.prefix`, options.prefix ?? '/');
  const prefix = normalized === '/' ? '' : normalized;
  const handler = new LegacyApiHandler(mount, prefix, NODE_ADAPTER);
  handler.usage?.start();
  handler.announcer?.start();
  const api = `${prefix}/metrics`;
  const host =
    mount.allowedHost === ANY_HOST
      ? undefined
      : canonicalHost(mount.allowedHost);
  return (request, response, next) => {
    const arrivalMs = performance.now();
    const url =
      (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/';
    const after = url.charAt(api.length);
    if (
      url.startsWith(api) &&
      (after === '' || after === '/' || after === '?') &&
      (host === undefined || canonicalHost(request.headers.host ?? '') === host)
    )
      handler.handle(request, response, url, arrivalMs);
    else if (next !== undefined) next();
    else
      sendErrorWith(
        NODE_ADAPTER,
        request,
        response,
        404,
        `no such resource: ${url.split('?')[0]}`
      );
  };
}
