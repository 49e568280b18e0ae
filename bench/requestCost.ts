import { MeterProvider } from '@opentelemetry/sdk-metrics';
import Fastify, { type FastifyInstance } from 'fastify';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { LegacyMetricsReader, PACKAGE_METER_NAME, USAGE_VIEWS } from '../src';
import { USAGE_INSTRUMENTS } from '../src/http/usageInstruments';
import {
  DEPRECATED_PREFIX,
  deprecationHeaders,
  PLAIN_PREFIX,
  registerLegacyApis,
  VARIANTS,
} from './legacyCases';

/**
 * `npm run bench:request`: what one request costs the server's JavaScript, case beside case in
 * one process, with no sockets. Fastify's request path is driven directly: each request is an
 * IncomingMessage and a ServerResponse on one of ten sink sockets, reused as keep-alive
 * connections are, so the kernel and the load generator stay out of the figures. The cases are
 * a static route with a copy of the endpoint's body (the wrk benchmark's ceiling), the same with
 * the three deprecation headers, and the legacy endpoint plain, with deprecation headers, with
 * usage telemetry and with both. Last, the SDK's own `Histogram.record` with the four
 * attribute set of `http.server.request.duration` and without attributes. Prints µs of CPU per
 * request, the median of the measured rounds.
 */

const ROUNDS = 7;
const REQUESTS_PER_ROUND = 20_000;
const HOST_TYPE = 'ht-00001.example.com';
const METRIC = 'benchSpiral000';
/** A socket that accepts every write and keeps nothing. */
class SinkSocket extends Writable {
  readonly remoteAddress = '127.0.0.1';
  readonly encrypted = false;

  override _write(
    _chunk: unknown,
    _encoding: BufferEncoding,
    done: () => void
  ): void {
    done();
  }

  override _writev(_chunks: unknown[], done: () => void): void {
    done();
  }
}

/** Sends GET `url` through `app`'s request handler on `socket` and resolves when it has finished. */
function serve(
  app: FastifyInstance,
  socket: SinkSocket,
  url: string
): Promise<void> {
  return new Promise(done => {
    const asSocket = socket as unknown as Socket;
    const request = new IncomingMessage(asSocket);
    request.method = 'GET';
    request.url = url;
    request.headers = {
      host: 'localhost',
      'user-agent': 'collectd/5.12.0',
      accept: 'application/json',
    };
    request.complete = true;
    request.push(null);
    const response = new ServerResponse(request);
    response.assignSocket(asSocket);
    response.on('finish', () => {
      response.detachSocket(asSocket);
      done();
    });
    app.server.emit('request', request, response);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** µs per call of `fn`, the median of rounds of `calls` calls, after one round of warm-up. */
function perCall(fn: () => void, calls: number): number {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = cpuMicros();
    for (let i = 0; i < calls; i++) fn();
    if (round > 0) rounds.push((cpuMicros() - start) / calls);
  }
  return median(rounds);
}

async function main(): Promise<void> {
  const reader = new LegacyMetricsReader({ hostTypes: [HOST_TYPE] });
  const provider = new MeterProvider({
    readers: [reader],
    views: [...USAGE_VIEWS],
  });
  provider
    .getMeter('bench')
    .createCounter(METRIC)
    .add(3, { host_type: HOST_TYPE });
  // The usage instruments' "new client" lines are not what is measured here.
  process.removeAllListeners('warning');

  const app = Fastify({ logger: false });
  await registerLegacyApis(app, reader, provider, true);
  const [headersOnly, usageOnly] = VARIANTS;
  let body = Buffer.from('{}');
  app.get('/ceiling', (_request, reply) => {
    void reply.header('content-type', 'application/json').send(body);
  });
  const headers: Array<[string, string]> = [];
  app.get('/ceiling-headers', (_request, reply) => {
    for (const [name, value] of headers) reply.header(name, value);
    void reply.header('content-type', 'application/json').send(body);
  });
  await app.ready();
  headers.push(...(await deprecationHeaders(app)));

  // The first tick publishes the metric; its body is the ceilings' body.
  const path = `/metrics/host_type/${HOST_TYPE}/${METRIC}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await app.inject({ url: `${PLAIN_PREFIX}${path}` });
    if (response.statusCode === 200) {
      body = Buffer.from(response.rawPayload);
      break;
    }
    if (Date.now() > deadline)
      throw new Error(`${PLAIN_PREFIX}${path} did not answer 200 in 10 s`);
    await new Promise(done => setTimeout(done, 100));
  }

  const cases: Array<[string, string]> = [
    ['ceiling: static route, same body', '/ceiling'],
    ['ceiling with the three deprecation headers', '/ceiling-headers'],
    ['legacy endpoint', `${PLAIN_PREFIX}${path}`],
    ['with deprecation headers', `${headersOnly.prefix}${path}`],
    ['with usage telemetry', `${usageOnly.prefix}${path}`],
    ['with both', `${DEPRECATED_PREFIX}${path}`],
  ];
  const sockets = Array.from({ length: 10 }, () => new SinkSocket());
  const rounds = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  // Cases alternate round by round, so that drift falls on all alike; round 0 warms up.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, url] of cases) {
      const start = cpuMicros();
      for (let i = 0; i < REQUESTS_PER_ROUND; i++)
        await serve(app, sockets[i % sockets.length]!, url);
      if (round > 0)
        rounds.get(name)!.push((cpuMicros() - start) / REQUESTS_PER_ROUND);
    }
  }

  const meter = provider.getMeter(PACKAGE_METER_NAME);
  const duration = meter.createHistogram(USAGE_INSTRUMENTS.requestDuration);
  const attributes = {
    'http.request.method': 'GET',
    'http.response.status_code': 200,
    'http.route': `${DEPRECATED_PREFIX}/metrics/host_type/:host_type/:metric`,
    'url.scheme': 'http',
  };
  const bare = provider.getMeter('bench').createHistogram('bench.bare');
  const sdkWithAttributes = perCall(
    () => duration.record(0.001, attributes),
    1_000_000
  );
  const sdkBare = perCall(() => bare.record(0.001), 1_000_000);

  const plain = median(rounds.get('legacy endpoint')!);
  const lines = [
    `Node ${process.version}; ${REQUESTS_PER_ROUND.toLocaleString('en-US')} GETs of ` +
      `/metrics/host_type/<one>/<metric> (${body.length}-byte body) per case and round, ` +
      `${ROUNDS} measured rounds, alternating.`,
    '',
    '| case | µs CPU per request | vs the legacy endpoint |',
    '|---|--:|--:|',
    ...cases.map(([name]) => {
      const micros = median(rounds.get(name)!);
      const delta = micros - plain;
      return `| ${name} | ${micros.toFixed(2)} | ${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(2)} |`;
    }),
    '',
    '| the SDK alone | µs per call |',
    '|---|--:|',
    `| \`Histogram.record\` with the four attributes of \`${USAGE_INSTRUMENTS.requestDuration}\` | ${sdkWithAttributes.toFixed(3)} |`,
    `| \`Histogram.record\` without attributes | ${sdkBare.toFixed(3)} |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await app.close();
  await provider.shutdown();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
