/**
 * `compare` and a gauge that moves both ways: a value the exposition showed in the middle of the
 * slot agrees even when the reads at either end of the slot show another one, and a value it
 * never came near still disagrees.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compareServers } from '../../src/migrate/compareServers';

const SLOT_MS = 400;

/** One server for both sides: `/api/…` the legacy API, `/metrics` the exposition. */
async function startServer(legacyValue: number): Promise<{
  base: string;
  server: Server;
}> {
  let firstRead: number | undefined;
  const server = createServer((request, response) => {
    if (request.url === '/metrics') {
      // 10 at the start of the slot and at its end, 5 in between (a dip of 400 ms, read about eight times).
      const now = Date.now();
      firstRead ??= now;
      const since = now - firstRead;
      const value = since >= 100 && since < 500 ? 5 : 10;
      response.setHeader('content-type', 'text/plain; version=0.0.4');
      response.end(`# TYPE g gauge\ng{host_type="h"} ${value}\n`);
      return;
    }
    response.setHeader('content-type', 'application/json');
    if (request.url === '/api/metrics') {
      response.end(
        JSON.stringify({ host_types: ['h'], metrics: ['g'], global: [] })
      );
      return;
    }
    if (request.url === '/api/metrics/host_type/h') {
      response.end(
        JSON.stringify({
          metrics: { g: { value: legacyValue, ms_since_reset: 1000 } },
        })
      );
      return;
    }
    response.statusCode = 404;
    response.end('{}');
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, server };
}

describe('compare with a gauge that moves both ways', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(
      servers.map(s => new Promise(resolve => s.close(resolve)))
    );
  });

  async function compareWith(legacyValue: number) {
    const { base, server } = await startServer(legacyValue);
    servers.push(server);
    const comparison = await compareServers({
      legacy: `${base}/api`,
      prometheus: `${base}/metrics`,
      slotMs: SLOT_MS,
    });
    return comparison.groups[0]!.keys.find(k => k.key === 'value')!;
  }

  it('should agree with a value the exposition showed between the reads at either end of the slot', async () => {
    expect(await compareWith(5)).toMatchObject({
      metric: 'g',
      legacy: 5,
      prometheus: 5,
      agree: true,
    });
  });

  it('should disagree with a value the exposition never came near', async () => {
    expect(await compareWith(3)).toMatchObject({
      metric: 'g',
      legacy: 3,
      agree: false,
    });
  });
});
