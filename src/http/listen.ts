/**
 * The one way this package listens: a fastify app with the timeouts, connection cap and error
 * shapes of a metrics endpoint, bound by {@link listenApp}, which reports the address actually
 * bound, turns a bind failure into a {@link ListenError} naming the place, and warns when the
 * listener is reachable from other machines. The standalone server, the configured listeners
 * and the Prometheus endpoint all go through here.
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { DEFAULT_LISTENER_TIMEOUTS } from '../config/types';
import type { ListenerSettings } from './listenerPlan';
import { ListenError } from '../errors';
import { isLoopbackAddress } from '../hostNames';
import { emitLegacyWarning, WARNING_CODES } from '../warnings';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import { rawErrorResponse, sendError } from './errorResponse';

/** How often Node looks for requests past their timeouts: a fraction of the shortest one. */
const TIMEOUT_CHECK_MS = 500;

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

/** `scheme://authority` and the rest of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/;

/**
 * An absolute-form target (`http://localhost:8088/api/metrics`) as origin-form, with its
 * authority as the Host, which it replaces (RFC 9112 §3.2.2).
 */
export function originForm(request: IncomingMessage): string {
  const url = request.url ?? '/';
  if (url.startsWith('/')) return url;
  const match = ABSOLUTE_FORM.exec(url);
  if (match === null) return url;
  const authority = match[1]!;
  request.headers.host = authority.slice(authority.lastIndexOf('@') + 1);
  const rest = match[2]!;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The method of a request that could not be parsed, when its first bytes say. */
const LEADING_METHOD = /^([A-Z]+) /;

/**
 * The method of the request that failed to parse: it starts after the last blank line before
 * the failure (pipelined requests before it have no body on this API).
 */
function failedMethod(error: {
  rawPacket?: unknown;
  bytesParsed?: unknown;
}): string | undefined {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return undefined;
  const failedAt =
    typeof error.bytesParsed === 'number' ? error.bytesParsed : packet.length;
  const blank = packet.lastIndexOf('\r\n\r\n', Math.max(0, failedAt - 1));
  const start = blank < 0 || blank >= failedAt ? 0 : blank + 4;
  return LEADING_METHOD.exec(
    packet.subarray(start, start + 16).toString('latin1')
  )?.[1];
}

/** The status and message of a request Node or fastify could not take, by error code. */
const REFUSALS = new Map<string | undefined, readonly [number, string]>([
  ['ERR_HTTP_REQUEST_TIMEOUT', [408, 'the request took too long to arrive']],
  ['HPE_HEADER_OVERFLOW', [431, 'the request headers are too large']],
  ['FST_ERR_MAX_PARAM_LENGTH', [414, 'a path segment is too long']],
  ['FST_ERR_BAD_URL', [400, 'malformed percent-encoding in the path']],
]);

function clientErrorHandler(
  error: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown },
  socket: Socket
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const [status, message] = REFUSALS.get(error.code) ?? [
      400,
      'the request could not be parsed',
    ];
    socket.end(rawErrorResponse(status, message, failedMethod(error)));
  }
  socket.destroy();
}

function frameworkError(
  error: Error & { code?: string },
  request: FastifyRequest,
  reply: Parameters<typeof sendError>[1]
): void {
  const [status, message] = REFUSALS.get(error.code) ?? [400, 'bad request'];
  sendError(request, reply, status, message);
}

/**
 * A fastify app for one listener of ours: the timeouts and connection cap of `settings`,
 * absolute-form targets routed like origin-form, request bodies never read, and every error
 * (not found, bad URL, bad request line, headers too large, timeouts) in our error shape
 * and the negotiated format, never naming the framework. Routes are added by the caller.
 */
export function createListenerApp(
  settings: Partial<ListenerSettings> = {}
): FastifyInstance {
  const { requestTimeout, headersTimeout, keepAliveTimeout } =
    settings.timeouts ?? DEFAULT_LISTENER_TIMEOUTS;
  const maxConnections = settings.maxConnections ?? Infinity;
  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    requestTimeout,
    keepAliveTimeout,
    http: {
      // Checked below, so that the answer has our error shape.
      requireHostHeader: false,
      headersTimeout,
      connectionsCheckingInterval: Math.min(
        TIMEOUT_CHECK_MS,
        headersTimeout,
        requestTimeout
      ),
    },
    rewriteUrl: originForm,
    frameworkErrors: frameworkError,
    clientErrorHandler,
  });
  for (const method of EXTRA_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  // The API is read-only: no body is ever parsed, so none can fail with 400, 413 or 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(null, undefined);
  });
  app.addHook('onRequest', (request, reply, done) => {
    // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without a Host header.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
      sendError(request, reply, 400, 'a Host header is required');
    else done();
  });
  // Node's own answers to these would have no body, or no answer at all for CONNECT.
  app.server.on('checkExpectation', (request: IncomingMessage, response) => {
    const body = jsonSerializer.error(
      'expectation_failed',
      'only Expect: 100-continue is supported'
    );
    response.writeHead(417, {
      'content-type': jsonSerializer.contentType,
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  app.server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    socket.on('error', () => {});
    socket.end(rawErrorResponse(501, 'CONNECT is not implemented'));
  });
  app.setNotFoundHandler((request, reply) => {
    if (EXTRA_METHODS.includes(request.method)) {
      sendError(request, reply, 501, `${request.method} is not implemented`);
      return;
    }
    sendError(
      request,
      reply,
      404,
      `no such resource: ${request.url.split('?')[0]}`
    );
  });
  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    const status =
      typeof error.statusCode === 'number' && error.statusCode >= 400
        ? error.statusCode
        : 500;
    sendError(
      request,
      reply,
      status,
      status >= 500 ? 'internal error' : 'bad request'
    );
  });
  if (Number.isFinite(maxConnections)) {
    // Node closes sockets beyond the cap at once; the connections already open are unaffected.
    app.server.maxConnections = maxConnections;
  }
  return app;
}

/** The base URL for a bound address and port. */
export function baseUrl(address: string, port: number): string {
  return `http://${hostPort(address, port)}`;
}

/** `127.0.0.1:8088`, `[::1]:8088`. */
export function hostPort(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * Binds `app` and resolves to the address and port actually bound, after warning when that is
 * beyond loopback. A bind failure becomes a {@link ListenError} whose message starts with `where`;
 * the app is closed then.
 */
export async function listenApp(
  app: FastifyInstance,
  address: string,
  port: number,
  where: string,
  what = 'legacy metrics API'
): Promise<{ address: string; port: number }> {
  try {
    await app.listen({ port, host: address });
  } catch (error) {
    await app.close();
    const cause = error as NodeJS.ErrnoException;
    throw new ListenError(
      `${where === '' ? '' : `${where}: `}cannot listen on ${hostPort(address, port)}: ${cause.code ?? cause.message}`,
      { address, port, cause }
    );
  }
  const bound = app.server.address();
  const result =
    typeof bound === 'object' && bound !== null
      ? { address: bound.address, port: bound.port }
      : { address, port };
  // The API has no authentication: a listener other machines can reach is worth a warning.
  if (!isLoopbackAddress(result.address))
    emitLegacyWarning(
      WARNING_CODES.exposed,
      `${what} bound to ${hostPort(result.address, result.port)}: it has no authentication, so anyone who can reach ` +
        'this address can read every metric; bind to loopback or restrict access with a firewall'
    );
  return result;
}
