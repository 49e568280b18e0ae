import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import * as protobuf from 'protobufjs';

/**
 * The part of OTLP's `opentelemetry/proto/collector/metrics/v1/metrics_service.proto` and the
 * messages it uses that metric exports carry, with the field numbers of the specification
 * (https://github.com/open-telemetry/opentelemetry-proto, `opentelemetry/proto/metrics/v1/metrics.proto`,
 * `common/v1/common.proto`, `resource/v1/resource.proto`). Exemplars and summaries are left out:
 * protobuf skips unknown fields, so the decoder stays correct for the fields it names.
 */
const OTLP_METRICS_PROTO = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }

message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message Metric {
  string name = 1;
  string description = 2;
  string unit = 3;
  oneof data {
    Gauge gauge = 5;
    Sum sum = 7;
    Histogram histogram = 9;
    ExponentialHistogram exponential_histogram = 10;
  }
}
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message ExponentialHistogram { repeated ExponentialHistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message NumberDataPoint {
  repeated KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; }
  uint32 flags = 8;
}
message HistogramDataPoint {
  repeated KeyValue attributes = 9;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  optional double sum = 5;
  repeated fixed64 bucket_counts = 6;
  repeated double explicit_bounds = 7;
  uint32 flags = 10;
  optional double min = 11;
  optional double max = 12;
}
message ExponentialHistogramDataPoint {
  repeated KeyValue attributes = 1;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  optional double sum = 5;
  sint32 scale = 6;
  fixed64 zero_count = 7;
  uint32 flags = 10;
  optional double min = 12;
  optional double max = 13;
}
`;

const ExportMetricsServiceRequest = protobuf
  .parse(OTLP_METRICS_PROTO)
  .root.lookupType('otlp.ExportMetricsServiceRequest');

/** One data point of an OTLP export, with the metric it belongs to. */
export interface OtlpPoint {
  readonly metric: string;
  readonly unit: string;
  readonly type: 'sum' | 'gauge' | 'histogram' | 'exponentialHistogram';
  readonly monotonic: boolean;
  /** 1 = delta, 2 = cumulative (OTLP's AggregationTemporality). */
  readonly temporality: number;
  readonly scope: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Sums and gauges. */
  readonly value?: number;
  /** Histograms. */
  readonly count?: number;
  readonly sum?: number;
  readonly min?: number;
  readonly max?: number;
  readonly bucketCounts?: readonly number[];
  readonly explicitBounds?: readonly number[];
}

/** One decoded export request. */
export interface OtlpRequest {
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly resource: Readonly<Record<string, unknown>>;
  readonly points: readonly OtlpPoint[];
}

/** A loopback OTLP/HTTP metrics receiver for tests: decodes protobuf and JSON exports. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT/v1/metrics`. */
  readonly url: string;
  readonly requests: readonly OtlpRequest[];
  /** Requests that could not be decoded, with the reason. */
  readonly failures: readonly string[];
  /** Polls until a request satisfies `predicate`, or throws after `timeoutMs`. */
  waitFor(
    predicate: (request: OtlpRequest) => boolean,
    timeoutMs: number
  ): Promise<OtlpRequest>;
  close(): Promise<void>;
}

type Decoded = Record<string, unknown>;

function anyValue(value: Decoded | undefined): unknown {
  if (value === undefined || value === null) return undefined;
  for (const key of ['stringValue', 'boolValue', 'doubleValue'])
    if (key in value) return value[key];
  if ('intValue' in value) return Number(value.intValue);
  if ('arrayValue' in value)
    return (
      ((value.arrayValue as Decoded).values as Decoded[] | undefined) ?? []
    ).map(anyValue);
  return undefined;
}

function attributeMap(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as Decoded[] | undefined) ?? [])
    out[kv.key as string] = anyValue(kv.value as Decoded);
  return out;
}

const optionalNumber = (value: unknown): number | undefined =>
  value === undefined || value === null ? undefined : Number(value);

/**
 * Flattens a decoded request. Protobuf (decoded with `longs: String`) and OTLP/JSON share the
 * camelCase field names; 64-bit integers arrive as strings in both, so they go through Number().
 */
function flatten(
  body: Decoded,
  contentType: string,
  headers: OtlpRequest['headers']
): OtlpRequest {
  const points: OtlpPoint[] = [];
  let resource: Record<string, unknown> = {};
  for (const rm of (body.resourceMetrics as Decoded[] | undefined) ?? []) {
    resource = attributeMap((rm.resource as Decoded | undefined)?.attributes);
    for (const sm of (rm.scopeMetrics as Decoded[] | undefined) ?? []) {
      const scope =
        ((sm.scope as Decoded | undefined)?.name as string | undefined) ?? '';
      for (const metric of (sm.metrics as Decoded[] | undefined) ?? []) {
        const type = (
          ['sum', 'gauge', 'histogram', 'exponentialHistogram'] as const
        ).find(t => metric[t] !== undefined);
        if (type === undefined) continue;
        const data = metric[type] as Decoded;
        const common = {
          metric: metric.name as string,
          unit: (metric.unit as string | undefined) ?? '',
          type,
          monotonic: data.isMonotonic === true,
          temporality: Number(data.aggregationTemporality ?? 0),
          scope,
        };
        for (const point of (data.dataPoints as Decoded[] | undefined) ?? []) {
          const attributes = attributeMap(point.attributes);
          if (type === 'sum' || type === 'gauge') {
            const value =
              point.asInt !== undefined
                ? Number(point.asInt)
                : Number(point.asDouble ?? 0);
            points.push({ ...common, attributes, value });
          } else {
            points.push({
              ...common,
              attributes,
              count: Number(point.count ?? 0),
              sum: optionalNumber(point.sum),
              min: optionalNumber(point.min),
              max: optionalNumber(point.max),
              bucketCounts: (
                (point.bucketCounts as unknown[] | undefined) ?? []
              ).map(Number),
              explicitBounds: (
                (point.explicitBounds as unknown[] | undefined) ?? []
              ).map(Number),
            });
          }
        }
      }
    }
  }
  return { contentType, headers, resource, points };
}

/** Decodes an OTLP/HTTP metrics request body by its content type. */
export function decodeOtlpMetrics(
  body: Buffer,
  contentType: string,
  headers: OtlpRequest['headers'] = {}
): OtlpRequest {
  if (contentType.startsWith('application/x-protobuf')) {
    const message = ExportMetricsServiceRequest.decode(body);
    const object = ExportMetricsServiceRequest.toObject(message, {
      longs: String,
      enums: Number,
      bytes: String,
    });
    return flatten(object as Decoded, contentType, headers);
  }
  if (contentType.startsWith('application/json')) {
    return flatten(
      JSON.parse(body.toString('utf8')) as Decoded,
      contentType,
      headers
    );
  }
  throw new Error(`unexpected content-type ${JSON.stringify(contentType)}`);
}

/** Starts a receiver on 127.0.0.1, on a free port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  const failures: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = request.headers['content-type'] ?? '';
      try {
        if (request.method !== 'POST' || request.url !== '/v1/metrics') {
          throw new Error(`unexpected ${request.method} ${request.url}`);
        }
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip')
          body = gunzipSync(body);
        requests.push(decodeOtlpMetrics(body, contentType, request.headers));
        // An empty ExportMetricsServiceResponse: full success.
        const json = contentType.startsWith('application/json');
        response.writeHead(200, {
          'content-type': json ? 'application/json' : 'application/x-protobuf',
        });
        response.end(json ? '{}' : Buffer.alloc(0));
      } catch (error) {
        failures.push(String(error));
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>(resolve =>
    server.listen({ host: '127.0.0.1', port: 0 }, resolve)
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/metrics`,
    requests,
    failures,
    async waitFor(predicate, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = requests.find(predicate);
        if (found !== undefined) return found;
        if (Date.now() > deadline) {
          const seen = `${requests.length} received; failures: ${failures.join('; ') || 'none'}`;
          throw new Error(
            `no OTLP request matched within ${timeoutMs} ms (${seen})`
          );
        }
        await new Promise(resolve => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
