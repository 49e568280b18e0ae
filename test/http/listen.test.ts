import { XMLValidator } from 'fast-xml-parser';
import { connect, type Socket } from 'node:net';
import {
  parseLegacyApiConfig,
  startLegacyMetricsListeners,
  startLegacyMetricsServer,
  type LegacyMetricsListeners,
  type LegacyMetricsServer,
} from '../../src';
import { createRig, createServingRig, type Rig } from '../helpers';
import { rawRequest as raw } from '../support/http';

describe('listeners of ours (standalone server)', () => {
  let rig: Rig;
  let server: LegacyMetricsServer | undefined;

  beforeEach(async () => {
    rig = await createServingRig();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rig.close();
  });

  const get = (target: string, headers = 'Host: localhost\r\n') =>
    `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`;

  it('should route an absolute-form target like origin-form (RFC 9112 §3.2.2)', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    const res = await raw(
      server.port,
      get(`http://localhost:${server.port}/api/metrics/all/xmppMessageSent`)
    );
    expect([res.status, res.body]).toEqual([
      200,
      '{"metric":{"count":7,"one":7}}',
    ]);
  });

  it('should answer only loopback names in Host when bound to loopback, unless told otherwise', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    for (const host of [
      'localhost',
      `127.0.0.1:${server.port}`,
      '[::1]:80',
      'LOCALHOST',
    ]) {
      expect([
        host,
        (await raw(server.port, get('/api/metrics', `Host: ${host}\r\n`)))
          .status,
      ]).toEqual([host, 200]);
    }
    const rebound = await raw(
      server.port,
      get('/api/metrics', 'Host: attacker.example:8088\r\n')
    );
    expect([rebound.status, JSON.parse(rebound.body)]).toEqual([
      404,
      { error: 'not_found', message: 'no such resource: /api/metrics' },
    ]);
    await server.close();
    server = await startLegacyMetricsServer(rig.reader, {
      port: 0,
      allowedHost: '_',
    });
    expect(
      (
        await raw(
          server.port,
          get('/api/metrics', 'Host: attacker.example\r\n')
        )
      ).status
    ).toBe(200);
  });

  it.each([
    ['bad percent-encoding in the API', '/api/metrics/host_type/%E0%A4%A', 400],
    ['bad percent-encoding outside it', '/x/%zz', 400],
    ['a path outside the prefix', '/elsewhere', 404],
  ])(
    'should answer %s with our error shape in the negotiated format, never naming the framework',
    async (_case, target, status) => {
      server = await startLegacyMetricsServer(rig.reader, { port: 0 });
      const xml = await raw(
        server.port,
        get(target, 'Host: localhost\r\nAccept: application/xml\r\n')
      );
      expect(xml.status).toBe(status);
      expect(xml.head).toContain('content-type: application/xml');
      expect(XMLValidator.validate(xml.body)).toBe(true);
      expect(xml.body).toMatch(/^<error code='\w+' message='[^']*'\/>$/);
      const json = await raw(server.port, get(target));
      expect(json.status).toBe(status);
      expect(Object.keys(JSON.parse(json.body))).toEqual(['error', 'message']);
      expect(xml.body + json.body).not.toMatch(/FST_|fastify/i);
    }
  );

  it('should answer a body-bearing method at once without reading the body, closing the connection', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    for (const target of ['/api/metrics', '/elsewhere']) {
      const started = Date.now();
      // The body is announced but never sent: the answer must not wait for it.
      const socket = connect(server.port, '127.0.0.1');
      const answer = await new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', chunk => chunks.push(chunk));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
        socket.on('error', reject);
        socket.write(
          `POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`
        );
      });
      expect(answer).toMatch(
        target === '/api/metrics' ? /^HTTP\/1\.1 405 / : /^HTTP\/1\.1 404 /
      );
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(Date.now() - started).toBeLessThan(4_000);
    }
  });

  it('should answer headers too large with our error shape', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    const res = await raw(
      server.port,
      `GET /api/metrics HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`
    );
    expect([res.status, JSON.parse(res.body)]).toEqual([
      431,
      {
        error: 'request_header_fields_too_large',
        message: 'the request headers are too large',
      },
    ]);
  });
});

describe('listeners of ours under slow clients', () => {
  let rig: Rig;
  let running: LegacyMetricsListeners | undefined;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    rig = createRig({ hostTypes: ['localhost'] });
    await rig.flush();
  });

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await running?.close();
    running = undefined;
    await rig.close();
  });

  /** A client that opens a connection and sends `head`, then one byte of `trickle` every 100 ms. */
  function trickler(
    port: number,
    head: string,
    trickle: string
  ): Promise<void> {
    return new Promise(resolve => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(head);
        let i = 0;
        const timer = setInterval(() => {
          if (socket.destroyed || i >= trickle.length) return;
          socket.write(trickle[i++]!);
        }, 100);
        socket.on('close', () => clearInterval(timer));
        resolve();
      });
      socket.on('error', () => {});
      sockets.push(socket);
    });
  }

  /** Retries a GET until it is answered 200; resolves to the time that took. */
  async function servedWithin(url: string, limitMs: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < limitMs) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(limitMs) });
        if (res.status === 200) return Date.now() - started;
      } catch {
        // Refused beyond max_connections: try again.
      }
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    throw new Error(`not served within ${limitMs} ms`);
  }

  it.each([
    [
      'trickling a body',
      'POST /api/metrics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 600\r\n\r\n',
      'x'.repeat(600),
    ],
    [
      'trickling headers',
      'GET /api/metrics HTTP/1.1\r\nHost: localhost\r\n',
      'X-Slow: ' + 'y'.repeat(600),
    ],
  ])(
    'should serve a normal request within the request timeout plus one second with max_connections = 2 and two clients %s',
    async (_case, head, trickle) => {
      const requestTimeout = 2_000;
      const config = parseLegacyApiConfig(
        [
          '[[listen.http]]',
          '  port = 0',
          '  ip_address = "127.0.0.1"',
          '  transport.max_connections = 2',
          `  transport.request_timeout = ${requestTimeout}`,
          '  transport.headers_timeout = 1000',
          '  [[listen.http.handlers.service_api]]',
          '    host = "_"',
          '    path = "/api"',
        ].join('\n'),
        'slow.toml'
      );
      running = await startLegacyMetricsListeners(rig.reader, config);
      const { port, metricsUrl } = running.listeners[0]!;
      await trickler(port, head, trickle);
      await trickler(port, head, trickle);
      const took = await servedWithin(metricsUrl, requestTimeout + 1_000);
      expect(took).toBeLessThan(requestTimeout + 1_000);
    }
  );
});
