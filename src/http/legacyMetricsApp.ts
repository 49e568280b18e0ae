import Fastify, { type FastifyInstance } from 'fastify';
import type { Variant } from '../attributes';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import { legacyMetricsApi } from './legacyMetricsApi';
import type { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import type { DeprecationOptions } from '../config/deprecationConfig';
import type { LegacyApiDeprecationOptions } from './deprecation';
import type { LegacyApiUsageOptions } from './usageTelemetry';

/** One mount of the legacy API on an app: where and how it is served. */
export interface LegacyMount {
  /** The URL prefix, e.g. `/api`. */
  path: string;
  variant: Variant;
  /** The Host the mount answers to; `_` for any. */
  host: string;
  /** How the mount announces its end. @default undefined */
  deprecation?: DeprecationOptions;
}

/** WebDAV and other registered methods the original's router knew of: they get 501, not 404. */
const EXTRA_METHODS = [
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
  'SEARCH',
  'LINK',
  'UNLINK',
];

/**
 * A standalone fastify app serving the legacy API at each mount. Requests that match no mount
 * (another path, another Host) get a JSON 404; unknown methods get 501.
 */
export function createLegacyMetricsApp(
  reader: LegacyMetricsReader,
  mounts: readonly LegacyMount[],
  options: { maxConnections?: number } & LegacyApiUsageOptions &
    Pick<LegacyApiDeprecationOptions, 'defaultSuccessor'> = {}
): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  for (const method of EXTRA_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  for (const mount of mounts) {
    // fastify keeps a prefix of `/` as is, which would double the slash before `metrics`.
    const prefix = mount.path === '/' ? '' : mount.path;
    void app.register(legacyMetricsApi, {
      reader,
      variant: mount.variant,
      host: mount.host,
      prefix,
      deprecation: mount.deprecation,
      defaultSuccessor: options.defaultSuccessor,
      meterProvider: options.meterProvider,
      usage: options.usage,
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const standard = !EXTRA_METHODS.includes(request.method);
    const [status, code, message] = standard
      ? [404, 'not_found', `no such resource: ${request.url.split('?')[0]}`]
      : [501, 'not_implemented', `${request.method} is not implemented`];
    void reply
      .code(status)
      .header('content-type', jsonSerializer.contentType)
      .send(Buffer.from(jsonSerializer.error(code, message)));
  });
  if (
    options.maxConnections !== undefined &&
    Number.isFinite(options.maxConnections)
  ) {
    // Node closes sockets beyond the cap at once; the connections already open are unaffected.
    app.server.maxConnections = options.maxConnections;
  }
  return app;
}
