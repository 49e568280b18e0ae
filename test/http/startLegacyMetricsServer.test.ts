import { diag } from '@opentelemetry/api';
import { createServer, type Server } from 'node:net';
import {
  InvalidOptionError,
  startLegacyMetricsServer,
  type LegacyMetricsServer,
} from '../../src';
import { createServingRig, type Rig } from '../helpers';
import { captureDiag } from '../support/diag';
import { takeWarnings } from '../support/warnings';
import { WARNING_CODES } from '../../src/warnings';
import { freePort, httpRequest, type HttpExchange } from '../support/http';

/** A GET (or `method`) over a real socket: status, headers and body as sent. */
const exchange = (
  url: string,
  method = 'GET',
  headers: Record<string, string> = {}
): Promise<HttpExchange> => httpRequest(url, { method, headers });

describe('startLegacyMetricsServer', () => {
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

  it('should listen on loopback by default and resolve to its base URL', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await exchange(
      `${server.url}/api/metrics/host_type/localhost/xmppMessageSent`
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe('{"metric":{"count":7,"one":7}}');
  });

  it('should send HEAD headers with the GET length and no body over the wire', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    const get = await exchange(`${server.url}/api/metrics`);
    const head = await exchange(`${server.url}/api/metrics`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(
      String(Buffer.byteLength(get.body))
    );
  });

  it('should serve under the configured path and variant, on IPv6 loopback too', async () => {
    server = await startLegacyMetricsServer(rig.reader, {
      port: 0,
      address: '::1',
      path: '/legacy/',
      variant: 'host',
    });
    expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(
      (
        await exchange(
          `${server.url}/legacy/metrics/host/localhost/xmppMessageSent`
        )
      ).status
    ).toBe(200);
    expect((await exchange(`${server.url}/api/metrics`)).status).toBe(404);
  });

  it('should answer 501 to methods the original router knew but never allowed', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    const res = await exchange(`${server.url}/api/metrics`, 'PROPFIND');
    expect(res.status).toBe(501);
    expect(JSON.parse(res.body)).toEqual({
      error: 'not_implemented',
      message: 'PROPFIND is not implemented',
    });
  });

  it('should answer 404 with a JSON error outside the prefix', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    const res = await exchange(`${server.url}/other`);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({
      error: 'not_found',
      message: 'no such resource: /other',
    });
  });

  it('should report a port in use as a ListenError naming the address', async () => {
    const blocker: Server = createServer();
    await new Promise<void>(resolve => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(
        startLegacyMetricsServer(rig.reader, { port })
      ).rejects.toThrow(
        expect.objectContaining({
          name: 'ListenError',
          message: `cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
          cause: expect.objectContaining({ code: 'EADDRINUSE' }),
        })
      );
    } finally {
      await new Promise(resolve => blocker.close(resolve));
    }
  });

  it('should warn once that the API has no authentication when bound beyond loopback', async () => {
    const warnings = captureDiag().warn;
    try {
      server = await startLegacyMetricsServer(rig.reader, {
        port: 0,
        address: '0.0.0.0',
      });
    } finally {
      diag.disable();
    }
    const port = server.url.split(':').pop();
    expect(warnings).toEqual([
      `legacy metrics API bound to 0.0.0.0:${port}: it has no authentication, so anyone who can reach this address can read every metric; bind to loopback or restrict access with a firewall`,
    ]);
    expect(takeWarnings()).toEqual(
      warnings.map(message => ({ code: WARNING_CODES.exposed, message }))
    );
    // Reached over loopback only.
    expect(
      (await exchange(`http://127.0.0.1:${port}/api/metrics`)).status
    ).toBe(200);
  });

  it('should close once, however often it is asked', async () => {
    server = await startLegacyMetricsServer(rig.reader, { port: 0 });
    const url = server.url;
    await Promise.all([server.close(), server.close()]);
    await server.close();
    await expect(exchange(`${url}/api/metrics`)).rejects.toThrow(
      /ECONNREFUSED/
    );
  });

  it.each<[string, object, string]>([
    [
      'a negative port',
      { port: -1 },
      'port: found -1, expected an integer from 0 to 65535',
    ],
    [
      'a port too large',
      { port: 70000 },
      'port: found 70000, expected an integer from 0 to 65535',
    ],
    [
      'no port',
      { port: undefined },
      'port: found nothing, expected an integer from 0 to 65535',
    ],
    [
      'a relative path',
      { path: 'api' },
      'path: found "api", expected a string starting with "/"',
    ],
    [
      'a bad variant',
      { variant: 'hosts' },
      'variant: found "hosts", expected "host_type" or "host" (did you mean "host"?)',
    ],
    [
      'an unknown key',
      { hots: 'x' },
      'hots: found an unknown option, expected one of port, address, allowedHost, path, variant, maxConnections, requestTimeout, headersTimeout, keepAliveTimeout, deprecation, defaultSuccessor, meterProvider, usage',
    ],
    [
      'host, naming the option for each of its meanings',
      { host: '127.0.0.1' },
      'host: found an unknown option, expected one of port, address, allowedHost, path, variant, maxConnections, requestTimeout, headersTimeout, keepAliveTimeout, deprecation, defaultSuccessor, meterProvider, usage (did you mean allowedHost for the Host header to answer or address for the address to bind?)',
    ],
    [
      'a zero request timeout',
      { requestTimeout: 0 },
      'requestTimeout: found 0, expected a positive integer',
    ],
    [
      'a sunset before since',
      { deprecation: { since: '2026-01-01', sunset: '2025-12-31' } },
      'deprecation.sunset: found "2025-12-31", expected an instant not before since (2026-01-01T00:00:00Z)',
    ],
    [
      'an unknown deprecation key',
      { deprecation: { since: '2026-01-01', sunsett: '2026-02-01' } },
      'deprecation.sunsett: found an unknown option, expected one of since, sunset, successor, documentation, inBand, enforceSunset, brownouts (did you mean sunset?)',
    ],
    [
      'a relative defaultSuccessor',
      { defaultSuccessor: 'metrics' },
      'defaultSuccessor: found "metrics", expected an absolute http or https URL',
    ],
    [
      'a meterProvider that is none',
      { meterProvider: {} },
      'meterProvider: found an object, expected a MeterProvider',
    ],
    [
      'a negative maxClients',
      { usage: { maxClients: -1 } },
      'usage.maxClients: found -1, expected a non-negative integer',
    ],
  ])(
    'should reject %s with an InvalidOptionError naming the option, binding nothing',
    async (_case, options, message) => {
      const port = await freePort();
      await expect(
        startLegacyMetricsServer(rig.reader, { port, ...options } as never)
      ).rejects.toThrow(new InvalidOptionError(message));
      await expect(
        exchange(`http://127.0.0.1:${port}/api/metrics`)
      ).rejects.toThrow(/ECONNREFUSED/);
    }
  );
});
