import express from 'express';
import Fastify from 'fastify';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  legacyMetricsApi,
  legacyMetricsRequestListener,
  startLegacyMetricsServer,
  type LegacyMetricsApiOptions,
  type LegacySnapshotSource,
} from '../../src';

/** A request as `app.inject` takes it. */
export type Injection =
  | string
  | {
      method?: string;
      url: string;
      headers?: Record<string, string>;
      payload?: string;
    };

/** A response as `app.inject` gives it. */
export interface Injected {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: string;
  rawPayload: Buffer;
  json(): any;
}

/** One server serving the legacy API at `/api`. */
export interface ServedApi {
  inject(request: Injection): Promise<Injected>;
  close(): Promise<void>;
}

/** The plugin's options without `reader`: what every server below takes. */
export type ApiOptions = Omit<LegacyMetricsApiOptions, 'reader'>;

/** Sends `request` to `port` on 127.0.0.1 over a fresh socket. */
function send(port: number, request: Injection): Promise<Injected> {
  const {
    method = 'GET',
    url,
    headers = {},
    payload,
  } = typeof request === 'string' ? { url: request } : request;
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path: url, headers, agent: false },
      res => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const rawPayload = Buffer.concat(chunks);
          const body = rawPayload.toString();
          done({
            statusCode: res.statusCode!,
            headers: res.headers,
            body,
            rawPayload,
            json: () => JSON.parse(body),
          });
        });
      }
    );
    req.setTimeout(5_000, () => req.destroy(new Error(`${url} timed out`)));
    req.on('error', fail);
    req.end(payload);
  });
}

async function listening(server: Server): Promise<ServedApi> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    inject: request => send(port, request),
    close: () =>
      new Promise(done => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * The three ways to serve the legacy API at `/api`: the fastify plugin (through `inject`), and
 * the request listener under `node:http` and under Express 5, over real sockets.
 */
export const SERVERS: ReadonlyArray<
  [
    name: string,
    serve: (
      reader: LegacySnapshotSource,
      options?: ApiOptions
    ) => Promise<ServedApi>,
  ]
> = [
  [
    'fastify plugin',
    async (reader, options = {}) => {
      const app = Fastify();
      await app.register(legacyMetricsApi, {
        reader,
        prefix: '/api',
        ...options,
      });
      await app.ready();
      return {
        inject: async request => app.inject(request as never),
        close: async () => {
          await app.close();
        },
      };
    },
  ],
  [
    'node:http request listener',
    (reader, options = {}) =>
      listening(
        createServer(
          legacyMetricsRequestListener(reader, { prefix: '/api', ...options })
        )
      ),
  ],
  [
    'Express request listener',
    (reader, options = {}) => {
      const app = express();
      app.use(
        '/api',
        legacyMetricsRequestListener(reader, { prefix: '/api', ...options })
      );
      return listening(createServer(app));
    },
  ],
];

/** A server listening on 127.0.0.1 with the legacy API at `<url>/api`. */
export interface ListeningApi {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The three ways to serve the legacy API at `/api` over real sockets: the plugin in the package's
 * standalone server, and the request listener under `node:http` and under Express 5.
 */
export const LISTENING_SERVERS: ReadonlyArray<
  [
    name: string,
    start: (
      reader: LegacySnapshotSource,
      options: ApiOptions
    ) => Promise<ListeningApi>,
  ]
> = [
  [
    'fastify plugin',
    (reader, options) =>
      startLegacyMetricsServer(reader, { port: 0, ...options }),
  ],
  ...SERVERS.slice(1).map(
    ([name]): [
      string,
      (
        reader: LegacySnapshotSource,
        options: ApiOptions
      ) => Promise<ListeningApi>,
    ] => [
      name,
      async (reader, options) => {
        const listener = legacyMetricsRequestListener(reader, {
          prefix: '/api',
          ...options,
        });
        let server: Server;
        if (name.startsWith('Express')) {
          const app = express();
          app.use('/api', listener);
          server = createServer(app);
        } else server = createServer(listener);
        server.listen(0, '127.0.0.1');
        await once(server, 'listening');
        const { port } = server.address() as AddressInfo;
        return {
          url: `http://127.0.0.1:${port}`,
          close: () =>
            new Promise(done => {
              server.closeAllConnections();
              server.close(() => done());
            }),
        };
      },
    ]
  ),
];
