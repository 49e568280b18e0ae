/**
 * How the legacy API reads a framework's request and writes its reply: the one thing each
 * entry point (the fastify plugin, the `node:http` request listener) supplies, so that routing
 * and answering are written once, in {@link LegacyApiHandler}.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Reads a framework's request. */
export interface RequestReader<Req> {
  /** Node's request under the framework's. */
  raw(request: Req): IncomingMessage;
  /** The client's address, as far as the framework trusts proxies. */
  clientAddress(request: Req): string;
  /** `http` or `https`. */
  scheme(request: Req): string;
}

/** Reads a framework's request and writes its reply. */
export interface HttpAdapter<Req, Rep> extends RequestReader<Req> {
  header(reply: Rep, name: string, value: string): void;
  /** Sends `status` and `body` (none when undefined), ending the response. */
  send(reply: Rep, status: number, body?: Buffer): void;
}

/** fastify's request and reply: replies go through fastify, so the application's hooks see them. */
export const FASTIFY_ADAPTER: HttpAdapter<FastifyRequest, FastifyReply> =
  Object.freeze({
    raw: (request: FastifyRequest) => request.raw,
    clientAddress: (request: FastifyRequest) => request.ip,
    scheme: (request: FastifyRequest) => request.protocol,
    header(reply: FastifyReply, name: string, value: string): void {
      reply.header(name, value);
    },
    send(reply: FastifyReply, status: number, body?: Buffer): void {
      void reply.code(status).send(body);
    },
  });

/** Node's own request and response, as `node:http`, Express and Koa hand them over. */
export const NODE_ADAPTER: HttpAdapter<IncomingMessage, ServerResponse> =
  Object.freeze({
    raw: (request: IncomingMessage) => request,
    clientAddress: (request: IncomingMessage) =>
      request.socket.remoteAddress ?? '',
    scheme: (request: IncomingMessage) =>
      (request.socket as Partial<TLSSocket>).encrypted === true
        ? 'https'
        : 'http',
    header(reply: ServerResponse, name: string, value: string): void {
      reply.setHeader(name, value);
    },
    send(reply: ServerResponse, status: number, body?: Buffer): void {
      reply.statusCode = status;
      reply.setHeader('content-length', body?.length ?? 0);
      reply.end(body);
    },
  });
