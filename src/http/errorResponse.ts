/**
 * The one error body shape of every response this package's listeners and plugin produce,
 * `{"error":code,"message":…}` (or its XML form), in the format the request negotiated.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import type { LegacySerializer } from '../snapshot/serializer';
import { xmlSerializer } from '../snapshot/xmlSerializer';
import { negotiate, type LegacyFormat } from './contentNegotiation';
import { FASTIFY_ADAPTER, type HttpAdapter } from './httpAdapter';

/** The serializer of each negotiated format. */
export const SERIALIZERS: Readonly<Record<LegacyFormat, LegacySerializer>> =
  Object.freeze({ json: jsonSerializer, xml: xmlSerializer });

/** The error code of each status this package sends. */
const ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  431: 'request_header_fields_too_large',
  500: 'internal_error',
  501: 'not_implemented',
  503: 'unavailable',
};

/** The stable error code of a status: `not_found` for 404. */
export function errorCode(status: number): string {
  return (
    ERROR_CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request')
  );
}

/**
 * A request that announced a body which has not fully arrived: the reply closes the connection
 * rather than wait for it, since this API never reads bodies.
 */
export function bodyPending(request: IncomingMessage): boolean {
  const headers = request.headers;
  const announced =
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined &&
      headers['content-length'] !== '0');
  return announced && !request.complete;
}

/**
 * Sends our error body with `status` through `adapter`, in `format`: by default the negotiated
 * one, JSON when there is none.
 */
export function sendErrorWith<Req, Rep>(
  adapter: HttpAdapter<Req, Rep>,
  request: Req,
  reply: Rep,
  status: number,
  message: string,
  format?: LegacyFormat
): void {
  const raw = adapter.raw(request);
  const serializer =
    SERIALIZERS[
      format ?? (negotiate(raw.headers.accept) === 'xml' ? 'xml' : 'json')
    ];
  if (bodyPending(raw)) adapter.header(reply, 'connection', 'close');
  adapter.header(reply, 'content-type', serializer.contentType);
  adapter.header(reply, 'vary', 'Accept');
  adapter.send(
    reply,
    status,
    Buffer.from(serializer.error(errorCode(status), message))
  );
}

/** Sends our error body with `status`, in the request's negotiated format. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  format?: LegacyFormat
): void {
  sendErrorWith(FASTIFY_ADAPTER, request, reply, status, message, format);
}

/**
 * A complete raw HTTP/1.1 error response for a socket whose request could not be parsed
 * (headers too large, a malformed request line, a timeout): JSON, since no Accept was read.
 */
export function rawErrorResponse(
  status: number,
  message: string,
  method?: string
): string {
  const body = jsonSerializer.error(errorCode(status), message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `content-type: ${jsonSerializer.contentType}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    // The answer to HEAD has the headers of the answer to GET, and no body.
    (method === 'HEAD' ? '' : body)
  );
}
