import {
  request,
  type Agent,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import { connect, createServer } from 'node:net';

/** An answer read to its end: status, headers and body as the server sent them. */
export interface HttpExchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the request went over a connection the agent kept alive from an earlier one. */
  reusedSocket: boolean;
}

export interface HttpRequestOptions {
  /** @default 'GET' */
  method?: string;
  /** A `host` here replaces the one of the URL. */
  headers?: OutgoingHttpHeaders;
  /** `false` for a connection of its own; by default Node's global agent. */
  agent?: Agent | false;
  /** The loopback address to connect from. */
  localAddress?: string;
  /** @default 5000 */
  timeoutMs?: number;
}

/** One HTTP request over a real socket; rejects when no answer comes within the timeout. */
export function httpRequest(
  url: string | URL,
  options: HttpRequestOptions = {}
): Promise<HttpExchange> {
  const { method = 'GET', headers = {}, agent, localAddress } = options;
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method,
        headers,
        timeout: options.timeoutMs ?? 5_000,
        ...(agent === undefined ? {} : { agent }),
        ...(localAddress === undefined ? {} : { localAddress }),
      },
      res => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () =>
          done({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            reusedSocket: req.reusedSocket,
          })
        );
      }
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${url}: no answer in time`))
    );
    req.on('error', fail);
    req.end();
  });
}

/**
 * Sends raw bytes, which need not be valid HTTP, and collects everything the server sends until
 * it closes (or 5 s pass).
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () =>
      socket.destroy(new Error('no answer within 5 s'))
    );
    socket.on('data', chunk => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(text.slice(9, 12)),
        head: text.slice(0, split).toLowerCase(),
        body: text.slice(split + 4),
      });
    });
    socket.end(bytes);
  });
}

/** A TCP port free on 127.0.0.1 right now (bound once by the system, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port =
        typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
