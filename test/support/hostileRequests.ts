/**
 * Hostile requests over raw sockets against real listeners of this package, and the checks on
 * what comes back: no 5xx but 501 (and 503 only from a reader that is not serving), no hang,
 * and every body parses as its Content-Type says. Used by the test suite and, at
 * a larger scale, by `npm run fuzz` (bench/fuzz.ts).
 */
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { XMLValidator } from 'fast-xml-parser';
import { connect } from 'node:net';
import {
  LegacyMetricsReader,
  parseLegacyApiConfig,
  startLegacyMetricsListeners,
  startLegacyMetricsServer,
} from '../../src';
import { seededRandom } from './random';

/** One hostile exchange: the bytes of one or more pipelined requests on one connection. */
export interface HostileCase {
  /** What kind of hostility, for the table. */
  readonly kind: string;
  /** Which listener: `serving` (a registered reader) or `unregistered` (503 expected). */
  readonly target: 'serving' | 'unregistered';
  /** The methods of the pipelined requests, in order (HEAD answers carry no body). */
  readonly methods: readonly string[];
  readonly bytes: Buffer;
}

/** What one response was, and whether it broke a rule. */
export interface HostileOutcome {
  readonly kind: string;
  /** The status, or `hang` / `no answer`. */
  readonly status: string;
  /** Why this outcome is unexpected; undefined when it is fine. */
  readonly failure: string | undefined;
  /** What was sent and received, to reproduce a failure. */
  readonly request?: Buffer;
  readonly response?: Buffer;
}

const METHODS = [
  'GET',
  'GET',
  'GET',
  'HEAD',
  'OPTIONS',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'SEARCH',
  'BREW',
  'get',
  'CONNECT',
];
const SEGMENTS = [
  'metrics',
  'all',
  'global',
  'host_type',
  'host',
  'localhost',
  'test_type',
  'test%20type',
  'xmppMessageSent',
  'sessionCount',
  'nodeUpTime',
  '',
  '..',
  '.',
  '%',
  '%zz',
  '%00',
  '%C0%AF',
  '%E0%A4%A',
  '%FF',
  '%2F',
  '+',
  'a;b',
  '\u00e9',
  'x'.repeat(300),
  '__proto__',
  'constructor',
];
const PREFIXES = ['/api', '/api/metrics', '/legacy/metrics', '', '/', '//api'];
const ACCEPTS = [
  undefined,
  'application/json',
  'application/xml',
  '*/*',
  'application/*',
  'text/html',
  'application/xml;q=0, application/json;q=0',
  'application/xml;q=0.9, application/json;q=0.8',
  ';;;',
  '*/json',
  'application/*;q=2',
  'application/json;q=abc',
  '',
  'a'.repeat(3000),
];
const HOSTS = [
  'localhost',
  '127.0.0.1',
  '[::1]:8088',
  'attacker.example',
  '',
  undefined,
  'LOCALHOST:1',
];
/** Raw bytes placed in the request target. */
const RAW_BYTES = [
  Buffer.from([0]),
  Buffer.from([0xff]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from(' '),
  Buffer.from('\t'),
  Buffer.from('\u2603'),
];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)]!;
}

function path(next: () => number): string {
  const count = Math.floor(next() * 5);
  let out = pick(next, PREFIXES);
  for (let i = 0; i < count; i++) out += `/${pick(next, SEGMENTS)}`;
  if (next() < 0.1) out += '/';
  if (next() < 0.1) out += `?${pick(next, SEGMENTS)}=${pick(next, SEGMENTS)}`;
  if (next() < 0.03) out += '#frag';
  return out === '' ? '/' : out;
}

interface Request {
  kind: string;
  method: string;
  bytes: Buffer;
}

function request(next: () => number, port: number): Request {
  const roll = next();
  let kind = 'path';
  let method = pick(next, METHODS);
  let target: Buffer = Buffer.from(path(next), 'latin1');
  let version = 'HTTP/1.1';
  const headers: string[] = [];
  let body = Buffer.alloc(0);

  if (roll < 0.08) {
    kind = 'raw bytes in target';
    const at = Math.floor(next() * target.length);
    target = Buffer.concat([
      target.subarray(0, at),
      pick(next, RAW_BYTES),
      target.subarray(at),
    ]);
  } else if (roll < 0.16) {
    kind = 'absolute-form';
    const scheme = pick(next, ['http', 'https', 'HTTP', 'ftp']);
    const authority = pick(next, [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      'attacker.example',
      'user@localhost',
      '',
    ]);
    target = Buffer.from(`${scheme}://${authority}${path(next)}`, 'latin1');
  } else if (roll < 0.2) {
    kind = 'odd target';
    target = Buffer.from(
      pick(next, ['*', `localhost:${port}`, 'metrics', '/%', '', '?x']),
      'latin1'
    );
  } else if (roll < 0.28) {
    kind = 'HTTP version';
    version = pick(next, [
      'HTTP/1.0',
      'HTTP/1.0',
      'HTTP/0.9',
      'HTTP/2.0',
      'http/1.1',
      'HTTP/1.2',
      'HTTP/9',
    ]);
  } else if (roll < 0.4) {
    kind = 'body';
    method = pick(next, ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'BREW']);
    const length = pick(next, [0, 1, 10, 5000, 2_000_000]);
    const sent = Math.min(length, pick(next, [0, 1, 10, 5000]));
    const type = pick(next, [
      'application/json',
      'application/xml',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      undefined,
    ]);
    if (type !== undefined) headers.push(`Content-Type: ${type}`);
    const framing = next();
    if (framing < 0.6) {
      headers.push(`Content-Length: ${length}`);
      body = Buffer.alloc(sent, '{');
    } else if (framing < 0.85) {
      headers.push('Transfer-Encoding: chunked');
      body = Buffer.from(
        `${sent.toString(16)}\r\n${'x'.repeat(sent)}\r\n${next() < 0.5 ? '0\r\n\r\n' : ''}`
      );
    } else {
      kind = 'body framing';
      headers.push(
        pick(next, [
          'Content-Length: -1',
          'Content-Length: 1, 2',
          'Content-Length: abc',
          'Transfer-Encoding: gzip',
        ])
      );
      if (next() < 0.5) headers.push('Transfer-Encoding: chunked');
      body = Buffer.from('5\r\nhello\r\n0\r\n\r\n');
    }
  } else if (roll < 0.48) {
    kind = 'Expect';
    headers.push(
      `Expect: ${pick(next, ['100-continue', '100-continue', 'weird', ''])}`
    );
    if (next() < 0.5) {
      headers.push('Content-Length: 4');
      body = Buffer.from('{}{}');
    }
  } else if (roll < 0.56) {
    kind = 'header counts';
    const count = pick(next, [0, 50, 150, 500]);
    for (let i = 0; i < count; i++) headers.push(`X-H${i}: ${i}`);
    if (next() < 0.2) headers.push(`X-Big: ${'b'.repeat(20_000)}`);
  } else if (roll < 0.62) {
    kind = 'malformed header';
    headers.push(
      pick(next, [
        'NoColon',
        ' Leading: space',
        'Bad Name: x',
        'X: \u0000',
        'X: a\rb',
        `Host: ${'h'.repeat(5000)}`,
      ])
    );
  }

  const accept = pick(next, ACCEPTS);
  if (accept !== undefined) headers.push(`Accept: ${accept}`);
  const host = pick(next, HOSTS);
  if (host !== undefined && version !== 'HTTP/1.0')
    headers.push(`Host: ${host}`);
  else if (host !== undefined && next() < 0.5) headers.push(`Host: ${host}`);
  const head = Buffer.from(
    `${method} ${target.toString('latin1')} ${version}\r\n${headers.map(h => `${h}\r\n`).join('')}\r\n`,
    'latin1'
  );
  // The target was built as bytes: put them back in verbatim.
  const line = Buffer.from(`${method} `, 'latin1');
  const bytes = Buffer.concat([
    line,
    target,
    head.subarray(
      line.length + Buffer.byteLength(target.toString('latin1'), 'latin1')
    ),
    body,
  ]);
  return { kind, method: method.toUpperCase(), bytes };
}

/** `count` hostile cases from `seed`, some pipelined, against listeners on `port` (for absolute-form). */
export function hostileCases(
  count: number,
  seed: number,
  port: number
): HostileCase[] {
  const next = seededRandom(seed);
  const cases: HostileCase[] = [];
  let requests = 0;
  while (requests < count) {
    const target = next() < 0.05 ? 'unregistered' : 'serving';
    if (next() < 0.1) {
      // Pipelining: several simple requests in one write.
      const n = 2 + Math.floor(next() * 4);
      const parts: Request[] = [];
      for (let i = 0; i < n; i++) {
        parts.push({
          kind: 'pipelined',
          method: pick(next, ['GET', 'HEAD', 'OPTIONS']),
          bytes: Buffer.alloc(0),
        });
        parts[i]!.bytes = Buffer.from(
          `${parts[i]!.method} ${path(next)} HTTP/1.1\r\nHost: localhost\r\n${next() < 0.3 ? 'Accept: application/xml\r\n' : ''}\r\n`,
          'latin1'
        );
      }
      cases.push({
        kind: 'pipelined',
        target,
        methods: parts.map(p => p.method),
        bytes: Buffer.concat(parts.map(p => p.bytes)),
      });
      requests += n;
    } else {
      const one = request(next, port);
      cases.push({
        kind: one.kind,
        target,
        methods: [one.method],
        bytes: one.bytes,
      });
      requests += 1;
    }
  }
  return cases;
}

interface RawResponse {
  method: string;
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** Splits what a server sent into responses (1xx interim ones dropped). */
export function parseResponses(
  data: Buffer,
  methods: readonly string[]
): RawResponse[] | string {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0)
      return `an incomplete head after ${responses.length} responses`;
    const lines = data.subarray(at, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3}) /.exec(lines[0]! + ' ');
    if (match === null) return `a bad status line ${JSON.stringify(lines[0])}`;
    const status = Number(match[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers.set(
        line.slice(0, colon).trim().toLowerCase(),
        line.slice(colon + 1).trim()
      );
    }
    at = end + 4;
    if (status >= 100 && status < 200) continue;
    let method = methods[responses.length] ?? 'GET';
    const declared = Number(headers.get('content-length') ?? 'NaN');
    const rest = data.length - at;
    // After a request that cannot be parsed, Node drops the pipelined requests before it that
    // are not answered yet, so the closing error answer may belong to a later request than
    // counted: tell HEAD (no body) from the rest by what follows the head.
    if (headers.get('connection') === 'close' && !Number.isNaN(declared)) {
      if (rest === 0 && declared > 0) method = 'HEAD';
      else if (rest === declared) method = 'GET';
    }
    let length = declared;
    if (method === 'HEAD' || status === 204 || status === 304) length = 0;
    let body: Buffer;
    if (Number.isNaN(length)) {
      if (headers.get('transfer-encoding') === 'chunked')
        return 'a chunked response, which this API never sends';
      body = data.subarray(at);
      at = data.length;
    } else {
      if (at + length > data.length)
        return 'a body shorter than its Content-Length';
      body = data.subarray(at, at + length);
      at += length;
    }
    responses.push({ method, status, headers, body });
  }
  return responses;
}

function judge(
  response: RawResponse,
  target: HostileCase['target'],
  method: string
): string | undefined {
  const { status, headers, body } = response;
  if (status >= 500 && status !== 501) {
    if (!(status === 503 && target === 'unregistered'))
      return `status ${status}`;
  }
  // A HEAD answer has the GET's headers and no body to parse.
  if (method === 'HEAD') return undefined;
  const type = headers.get('content-type');
  const text = body.toString('utf8');
  if (type === 'application/json') {
    try {
      JSON.parse(text);
    } catch {
      return `a JSON body that does not parse: ${JSON.stringify(text.slice(0, 80))}`;
    }
  } else if (type === 'application/xml') {
    if (XMLValidator.validate(text) !== true)
      return `an XML body that is not well-formed: ${JSON.stringify(text.slice(0, 80))}`;
  } else if (type === undefined) {
    if (body.length > 0) return 'a body without a Content-Type';
  } else {
    return `an unexpected Content-Type ${type}`;
  }
  if (/FST_/.test(text)) return 'a body naming the framework';
  return undefined;
}

/** Sends one case on its own connection and judges every response. */
function exchange(
  port: number,
  hostile: HostileCase,
  hangMs: number
): Promise<HostileOutcome[]> {
  return new Promise(resolve => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      socket.destroy();
    }, hangMs);
    socket.on('data', chunk => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const data = Buffer.concat(chunks);
      if (hung) {
        resolve([
          {
            kind: hostile.kind,
            status: 'hang',
            failure: `no end within ${hangMs} ms`,
            request: hostile.bytes,
          },
        ]);
        return;
      }
      if (data.length === 0) {
        resolve([
          {
            kind: hostile.kind,
            status: 'no answer',
            failure: 'closed without an answer',
            request: hostile.bytes,
          },
        ]);
        return;
      }
      const responses = parseResponses(data, hostile.methods);
      if (typeof responses === 'string') {
        resolve([
          {
            kind: hostile.kind,
            status: 'unparseable',
            failure: responses,
            request: hostile.bytes,
            response: data,
          },
        ]);
        return;
      }
      resolve(
        responses.map(response => ({
          kind: hostile.kind,
          status: String(response.status),
          failure: judge(response, hostile.target, response.method),
          request: hostile.bytes,
          response: data,
        }))
      );
    });
    // Half-close after sending: the server answers what it read, then closes.
    socket.end(hostile.bytes);
  });
}

/** The listeners under test: one serving a registered reader, one whose reader is not registered. */
export async function startFuzzTargets(): Promise<{
  ports: Record<HostileCase['target'], number>;
  close(): Promise<void>;
}> {
  const reader = new LegacyMetricsReader({
    hostTypes: ['localhost', 'test type'],
  });
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter('fuzz');
  meter.createCounter('xmppMessageSent').add(3, { host_type: 'localhost' });
  meter.createUpDownCounter('sessionCount').add(2, { host_type: 'test type' });
  meter.createGauge('nodeUpTime').record(42);
  meter.createHistogram('data.xmpp.sent.xml_stanza_size').record(100);
  await provider.forceFlush();
  const config = parseLegacyApiConfig(
    [
      '[[listen.http]]',
      '  port = 0',
      '  ip_address = "127.0.0.1"',
      '  [[listen.http.handlers.service_api]]',
      '    host = "_"',
      '    path = "/api"',
      '  [[listen.http.handlers.service_api]]',
      '    host = "localhost"',
      '    path = "/legacy"',
      '    variant = "host"',
    ].join('\n'),
    'fuzz.toml'
  );
  const serving = await startLegacyMetricsListeners(reader, config);
  const unregistered = await startLegacyMetricsServer(
    new LegacyMetricsReader(),
    {
      port: 0,
      allowedHost: '_',
    }
  );
  return {
    ports: {
      serving: serving.listeners[0]!.port,
      unregistered: unregistered.port,
    },
    async close() {
      await serving.close();
      await unregistered.close();
      await provider.shutdown();
    },
  };
}

/** Runs `count` hostile requests, `concurrency` connections at a time. */
export async function runHostileRequests(options: {
  count: number;
  seed: number;
  concurrency: number;
  hangMs: number;
}): Promise<HostileOutcome[]> {
  const targets = await startFuzzTargets();
  try {
    const cases = hostileCases(
      options.count,
      options.seed,
      targets.ports.serving
    );
    const outcomes: HostileOutcome[] = [];
    let nextCase = 0;
    const worker = async (): Promise<void> => {
      while (nextCase < cases.length) {
        const hostile = cases[nextCase++]!;
        outcomes.push(
          ...(await exchange(
            targets.ports[hostile.target],
            hostile,
            options.hangMs
          ))
        );
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    return outcomes;
  } finally {
    await targets.close();
  }
}

/** Statuses by kind of hostility, as printed lines. */
export function outcomeTable(outcomes: readonly HostileOutcome[]): string[] {
  const statuses = [...new Set(outcomes.map(o => o.status))].sort();
  const kinds = [...new Set(outcomes.map(o => o.kind))].sort();
  const count = (kind: string | undefined, status: string): number =>
    outcomes.filter(
      o => (kind === undefined || o.kind === kind) && o.status === status
    ).length;
  const width = Math.max(...kinds.map(k => k.length), 'total'.length) + 2;
  const cell = (value: string | number): string => String(value).padStart(8);
  const lines = [
    ['kind'.padEnd(width), ...statuses.map(cell), cell('all')].join(''),
  ];
  for (const kind of kinds) {
    lines.push(
      [
        kind.padEnd(width),
        ...statuses.map(s => cell(count(kind, s))),
        cell(outcomes.filter(o => o.kind === kind).length),
      ].join('')
    );
  }
  lines.push(
    [
      'total'.padEnd(width),
      ...statuses.map(s => cell(count(undefined, s))),
      cell(outcomes.length),
    ].join('')
  );
  return lines;
}
