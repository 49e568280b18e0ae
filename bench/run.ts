import { fork, type ChildProcess } from 'node:child_process';
import {
  benchCluster,
  CLUSTER_WORKERS,
  clusterTable,
  clusterTarget,
  type ClusterResult,
} from './cluster';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_READER_OPTIONS } from '../src/reader/options';
import {
  hostFeelTable,
  measureHostFeel,
  type HostFeelRow,
  v8FlagValue,
} from './hostFeelRun';
import { ChildChannel } from './ipc';
import { DEPRECATED_PREFIX, legacyEndpoints, VARIANTS } from './legacyCases';
import { CEILING_ROUTES, CEILING_WITH_HEADERS } from './server';
import { checkWrk, runWrk, type LoadResult } from './wrk';
import {
  isScaleName,
  sampleOf,
  SCALES,
  UPDATE_FRACTION,
  type Scale,
  type ScaleName,
} from './workload';

/**
 * `npm run bench [-- --scale L[,XL] --seconds 5 --connections 10 --warmup 1 --histogram-buckets 160 --variants --host-only --slice-ms 2 --semi-space 16 --v8-flag --no-allocation-site-pretenuring --fresh-attributes --sdk-counts-loop --cluster L|none]`
 * (needs wrk: `apt-get install -y wrk`).
 *
 * Last for each scale (alone with `--host-only`): what the host application feels, the event
 * loop's delay and a static route's latency under load, with the legacy reader and with the
 * baseline reader (hostFeel.ts).
 *
 * For each scale: measures the reader's tick and heap in two child processes (legacy reader vs a
 * reader with the same SDK aggregation that keeps nothing), then starts the server under test
 * (server.ts) in a child process and drives it with wrk at one connection count: for each legacy
 * endpoint, a static route sending a copy of its body (the ceiling), the endpoint itself and the
 * endpoint with deprecation headers and usage telemetry on, alternating in rounds; last, the
 * Prometheus exporter's handler. `--variants` adds, for each endpoint, its ceiling sending the three
 * deprecation headers too, and the endpoint with deprecation headers alone and with usage
 * telemetry alone, to show what each costs. Prints one table of
 * throughput and one of the reader's own costs, and writes the numbers to .bench/results.json.
 *
 * Last of all, the cluster case (cluster.ts, at scale L unless `--cluster` names another or
 * none): 4 `node:cluster` workers served by their primary.
 */

interface Options {
  scales: ScaleName[];
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** The reader's histogramMaxBuckets; the reader's default when undefined. */
  histogramBuckets: number | undefined;
  /** Also measure deprecation headers alone and usage telemetry alone. */
  variants: boolean;
  /** Only what the host application feels (loop delay, a static route's latency) per reader. */
  hostOnly: boolean;
  /** The scale of the cluster case (cluster.ts), run last; none with `--cluster none` or `--host-only`. */
  cluster: ScaleName | 'none';
  /** The legacy reader's sliceMs in the host-feel case; the reader's default when undefined. */
  sliceMs: number | undefined;
  /** V8 options of the host-feel processes (`--semi-space MB`, `--v8-flag F`), in order. */
  hostV8Flags: string[];
  /** The host-feel processes make an attributes object for each recording (`--fresh-attributes`). */
  freshAttributes: boolean;
  /** The host-feel processes have the SDK list bucket counts in a loop (`--sdk-counts-loop`). */
  sdkCountsLoop: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    scales: ['S', 'M', 'L', 'XL'],
    seconds: 10,
    warmupSeconds: 1,
    connections: 10,
    histogramBuckets: undefined,
    variants: false,
    hostOnly: false,
    cluster: 'L',
    sliceMs: undefined,
    hostV8Flags: [],
    freshAttributes: false,
    sdkCountsLoop: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    const value = argv[i + 1];
    const number = (): number => {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0)
        throw new Error(`${name} needs a positive number (got ${value})`);
      i++;
      return n;
    };
    switch (name) {
      case '--scale': {
        const scales = (value ?? '')
          .split(',')
          .map(s => s.trim().toUpperCase());
        for (const scale of scales)
          if (!isScaleName(scale))
            throw new Error(`--scale: unknown scale ${scale} (S, M, L, XL)`);
        options.scales = scales as ScaleName[];
        i++;
        break;
      }
      case '--seconds':
        options.seconds = Math.round(number());
        break;
      case '--warmup':
        options.warmupSeconds = Math.round(number());
        break;
      case '--connections':
        options.connections = Math.round(number());
        break;
      case '--histogram-buckets':
        options.histogramBuckets = Math.round(number());
        break;
      case '--variants':
        options.variants = true;
        break;
      case '--host-only':
        options.hostOnly = true;
        break;
      case '--fresh-attributes':
        options.freshAttributes = true;
        break;
      case '--sdk-counts-loop':
        options.sdkCountsLoop = true;
        break;
      case '--slice-ms':
        options.sliceMs = number();
        break;
      case '--semi-space':
        options.hostV8Flags.push(
          `--min-semi-space-size=${Math.round(number())}`
        );
        break;
      case '--v8-flag':
        options.hostV8Flags.push(v8FlagValue(value));
        i++;
        break;
      case '--cluster': {
        const scale = (value ?? '').toUpperCase();
        if (scale !== 'NONE' && !isScaleName(scale))
          throw new Error(
            `--cluster: unknown scale ${value} (S, M, L, XL, none)`
          );
        options.cluster = scale === 'NONE' ? 'none' : scale;
        i++;
        break;
      }
      default:
        throw new Error(
          `unknown argument ${name} (use --scale S|M|L|XL[,…], --seconds N, --warmup N, --connections N, --histogram-buckets N, --variants, --host-only, --slice-ms N, --semi-space MB, --v8-flag --FLAG, --fresh-attributes, --sdk-counts-loop, --cluster S|M|L|XL|none)`
        );
    }
  }
  return options;
}

const HERE = __dirname;
const ACCEPT = { accept: 'application/json' };
const log = (message: string): void =>
  void process.stderr.write(`${message}\n`);
const sleep = (ms: number) => new Promise(done => setTimeout(done, ms));

/**
 * Each ceiling and legacy case runs this many times, alternating, for `seconds / ROUNDS` each:
 * short rounds put the cases of one endpoint close together in time, so that the machine's
 * drift (other tenants, the server's own major collections every few seconds at L) falls on
 * all of them alike.
 */
const ROUNDS = 5;

interface CaseRow {
  scale: ScaleName;
  name: string;
  /** `variant` (`--variants`): the ceiling with the deprecation headers, or a legacy endpoint with only part of deprecation and usage on. */
  kind: 'ceiling' | 'legacy' | 'variant' | 'prometheus';
  bodyBytes: number;
  load: LoadResult;
  serverCpuPercent: number;
  /** The longest the server's event loop was blocked during the case. */
  loopDelayMaxMs: number;
  ticks: number;
  /** For legacy rows: the ceiling row of the same body size. */
  ceiling?: LoadResult;
  /** For the Prometheus row: one request on an idle server. */
  singleRequestMs?: number;
}

interface CostResult {
  series: number;
  updatesPerTick: number;
  firstTick: { cpuMs: number; wallMs: number };
  tickCpuMs: { mean: number; median: number; p90: number; max: number };
  tickWallMs: { mean: number; median: number; p90: number; max: number };
  heapUsed: number;
  external: number;
}

interface ScaleSummary {
  scale: ScaleName;
  series: number;
  legacy: CostResult;
  baseline: CostResult;
  memoryPerSeries: number;
  firstResponseMs: number;
  firstDataMs: number;
  listenUptimeMs: number;
  liveTickCpuMs: number;
}

function childScript(name: string): string {
  return join(HERE, `${name}.js`);
}

async function waitExit(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await Promise.race([
    new Promise(done => child.once('exit', done)),
    sleep(ms),
  ]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise(done => child.once('exit', done));
  }
}

function bucketArguments(options: Options): string[] {
  return options.histogramBuckets === undefined
    ? []
    : ['--histogram-buckets', String(options.histogramBuckets)];
}

async function measureReaderCost(
  scale: Scale,
  reader: 'legacy' | 'baseline',
  options: Options
): Promise<CostResult> {
  const child = fork(
    childScript('readerCost'),
    ['--scale', scale.name, '--reader', reader, ...bucketArguments(options)],
    {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }
  );
  const channel = new ChildChannel(child);
  try {
    return (await channel.nextEvent(
      'result',
      600_000
    )) as unknown as CostResult;
  } finally {
    await waitExit(child, 10_000);
  }
}

async function get(
  url: string,
  timeoutMs = 120_000
): Promise<{ status: number; bytes: number; ms: number }> {
  const start = performance.now();
  const response = await fetch(url, {
    headers: ACCEPT,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    bytes: body.length,
    ms: performance.now() - start,
  };
}

async function pollUntilOk(url: string, limitMs: number): Promise<void> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    try {
      if ((await get(url, 5_000)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (performance.now() > deadline)
      throw new Error(`${url} did not answer 200 within ${limitMs} ms`);
    await sleep(5);
  }
}

interface Usage {
  wallMs: number;
  cpuMs: number;
  updaterCpuMs: number;
  ticks: number;
  series: number;
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
}

interface Measured {
  load: LoadResult;
  usage: Usage;
}

/** Rounds of one case as one: requests over the total time, the median's mean and the worst p99. */
function combine(
  rounds: readonly Measured[]
): Pick<CaseRow, 'load' | 'serverCpuPercent' | 'loopDelayMaxMs' | 'ticks'> {
  const sum = (f: (m: Measured) => number) =>
    rounds.reduce((total, m) => total + f(m), 0);
  const requests = sum(m => m.load.requests);
  const seconds = sum(m => m.load.seconds);
  const p50s = rounds
    .map(m => m.load.p50Ms)
    .filter((p): p is number => p !== undefined);
  const p99s = rounds
    .map(m => m.load.p99Ms)
    .filter((p): p is number => p !== undefined);
  return {
    load: {
      requests,
      seconds,
      requestsPerSecond: requests / seconds,
      p50Ms:
        p50s.length === 0
          ? undefined
          : p50s.reduce((a, b) => a + b, 0) / p50s.length,
      p99Ms: p99s.length === 0 ? undefined : Math.max(...p99s),
      bytes: sum(m => m.load.bytes),
      errors: sum(m => m.load.errors),
    },
    serverCpuPercent:
      (100 * sum(m => m.usage.cpuMs)) / sum(m => m.usage.wallMs),
    loopDelayMaxMs: Math.max(...rounds.map(m => m.usage.loopDelayMaxMs)),
    ticks: sum(m => m.usage.ticks),
  };
}

async function benchScale(
  scale: Scale,
  options: Options
): Promise<{ rows: CaseRow[]; summary: ScaleSummary }> {
  log(`[${scale.name}] reader cost: legacy reader`);
  const legacy = await measureReaderCost(scale, 'legacy', options);
  log(`[${scale.name}] reader cost: baseline reader`);
  const baseline = await measureReaderCost(scale, 'baseline', options);

  log(`[${scale.name}] starting the server`);
  const spawnedAt = performance.now();
  const child = fork(
    childScript('server'),
    [
      '--scale',
      scale.name,
      ...bucketArguments(options),
      ...(options.variants ? ['--variants', 'true'] : []),
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }
  );
  const channel = new ChildChannel(child);
  const rows: CaseRow[] = [];
  try {
    const listening = await channel.nextEvent('listening', 600_000);
    const base = `http://127.0.0.1:${String(listening['port'])}`;
    const { hostType, metric } = sampleOf(scale);
    await pollUntilOk(`${base}/api/metrics`, 60_000);
    const firstResponseMs = performance.now() - spawnedAt;
    await pollUntilOk(
      `${base}/api/metrics/host_type/${hostType}/${metric}`,
      60_000
    );
    const firstDataMs = performance.now() - spawnedAt;

    // A few ticks with updates and no load, then the server's CPU while idle: updates plus ticks.
    await sleep(2_000);
    await channel.call('window');
    await sleep(5_000);
    const idle = await channel.call<Usage>('usage');
    const liveTickCpuMs =
      idle.ticks > 0 ? (idle.cpuMs - idle.updaterCpuMs) / idle.ticks : NaN;

    const endpoints = legacyEndpoints(hostType, metric);
    if (endpoints.length > CEILING_ROUTES)
      throw new Error('not enough ceiling routes');

    /** Load on `path` for `seconds`, and the server's usage over exactly that time. */
    const round = async (path: string, seconds: number): Promise<Measured> => {
      await channel.call('window');
      const load = await runWrk({
        url: `${base}${path}`,
        connections: options.connections,
        seconds,
        headers: ACCEPT,
      });
      const usage = await channel.call<Usage>('usage');
      return { load, usage };
    };
    const warmUp = (path: string) =>
      runWrk({
        url: `${base}${path}`,
        connections: options.connections,
        seconds: options.warmupSeconds,
        headers: ACCEPT,
      });
    const roundSeconds = Math.max(1, Math.round(options.seconds / ROUNDS));

    for (const [index, path] of endpoints.entries()) {
      const probe = await get(`${base}${path}`);
      if (probe.status !== 200)
        throw new Error(`${path} answered ${probe.status}`);
      const deprecatedPath = path.replace(/^\/api/, DEPRECATED_PREFIX);
      const deprecatedProbe = await fetch(`${base}${deprecatedPath}`, {
        headers: ACCEPT,
      });
      await deprecatedProbe.arrayBuffer();
      if (
        deprecatedProbe.status !== 200 ||
        deprecatedProbe.headers.get('deprecation') === null
      )
        throw new Error(
          `${deprecatedPath} answered ${deprecatedProbe.status} without a Deprecation header`
        );
      const { bytes } = await channel.call<{ bytes: number }>('ceiling', {
        index,
        path,
      });
      const ceilingPath = `/ceiling/${index}`;
      log(`[${scale.name}] ${path} (${bytes} B) and its ceiling`);
      const shown = path.replace(hostType, '<one>').replace(metric, '<metric>');
      const cases: Array<{
        path: string;
        name: string;
        kind: CaseRow['kind'];
        rounds: Measured[];
      }> = [
        {
          path: ceilingPath,
          name: `ceiling: static ${path.replace(/^\/api\/metrics/, '') || '/'} body`,
          kind: 'ceiling',
          rounds: [],
        },
        { path, name: shown, kind: 'legacy', rounds: [] },
        {
          path: deprecatedPath,
          name: `${shown} (deprecation headers and usage telemetry on)`,
          kind: 'legacy',
          rounds: [],
        },
      ];
      if (options.variants) {
        cases.push({
          path: `${CEILING_WITH_HEADERS}/${index}`,
          name: `ceiling with the three deprecation headers: static ${path.replace(/^\/api\/metrics/, '') || '/'} body`,
          kind: 'variant',
          rounds: [],
        });
        for (const variant of VARIANTS)
          cases.push({
            path: path.replace(/^\/api/, variant.prefix),
            name: `${shown} (${variant.name})`,
            kind: 'variant',
            rounds: [],
          });
      }
      for (const { path: casePath } of cases) await warmUp(casePath);
      // Alternate, so that drift in the machine's speed falls on all alike.
      for (let r = 0; r < ROUNDS; r++)
        for (const { path: casePath, rounds } of cases)
          rounds.push(await round(casePath, roundSeconds));
      const ceiling = combine(cases[0]!.rounds);
      for (const { name, kind, rounds } of cases)
        rows.push({
          scale: scale.name,
          name,
          kind,
          bodyBytes: kind === 'ceiling' ? bytes : probe.bytes,
          ...combine(rounds),
          ...(kind === 'ceiling' ? {} : { ceiling: ceiling.load }),
        });
    }

    // Last, since requests it leaves unanswered keep the server busy after wrk stops.
    log(`[${scale.name}] Prometheus exporter`);
    const single = await get(`${base}/metrics`);
    await channel.call('window');
    const prometheus = await runWrk({
      url: `${base}/metrics`,
      connections: options.connections,
      seconds: options.seconds,
      headers: ACCEPT,
      timeoutSeconds: 120,
    });
    const usage = await channel.call<Usage>('usage');
    rows.push({
      scale: scale.name,
      name: 'Prometheus exporter /metrics',
      kind: 'prometheus',
      bodyBytes: single.bytes,
      ...combine([{ load: prometheus, usage }]),
      singleRequestMs: single.ms,
    });
    return {
      rows,
      summary: {
        scale: scale.name,
        series: legacy.series,
        legacy,
        baseline,
        // The heap and what lives off it (the store's typed arrays): both are the reader's memory.
        memoryPerSeries:
          (legacy.heapUsed +
            legacy.external -
            baseline.heapUsed -
            baseline.external) /
          legacy.series,
        firstResponseMs,
        firstDataMs,
        listenUptimeMs: Number(listening['uptimeMs']),
        liveTickCpuMs,
      },
    };
  } finally {
    child.kill('SIGTERM');
    await waitExit(child, 5_000);
  }
}

const integer = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number | undefined): string =>
  n === undefined
    ? '—'
    : n < 10
      ? n.toFixed(2)
      : n < 100
        ? n.toFixed(1)
        : integer(n);
const ratio = (n: number): string =>
  n >= 100 ? integer(n) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

function throughputTable(rows: readonly CaseRow[], seconds: number): string {
  const lines = [
    '| scale | case | req/s | p50 ms | p99 ms | body bytes | × ceiling | × Prometheus | server CPU | loop blocked max ms |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of rows) {
    const prometheus = rows.find(
      r => r.scale === row.scale && r.kind === 'prometheus'
    );
    let versusCeiling = '1 (ref)';
    let versusPrometheus = '';
    if (row.kind === 'legacy' || row.kind === 'variant') {
      versusCeiling = ratio(
        row.load.requestsPerSecond / row.ceiling!.requestsPerSecond
      );
      if (prometheus !== undefined) {
        versusPrometheus =
          prometheus.load.requests === 0
            ? `> ${integer(row.load.requestsPerSecond * seconds)}`
            : ratio(
                row.load.requestsPerSecond / prometheus.load.requestsPerSecond
              );
      }
    } else if (row.kind === 'prometheus') {
      versusCeiling = '—';
      versusPrometheus = '1 (ref)';
    }
    const requestsPerSecond =
      row.load.requestsPerSecond >= 100
        ? integer(row.load.requestsPerSecond)
        : row.load.requestsPerSecond.toFixed(2);
    const errors = row.load.errors > 0 ? ` (${row.load.errors} errors)` : '';
    lines.push(
      `| ${row.scale} | ${row.name}${errors} | ${requestsPerSecond} | ${ms(row.load.p50Ms)} | ${ms(row.load.p99Ms)} | ` +
        `${integer(row.bodyBytes)} | ${versusCeiling} | ${versusPrometheus} | ${Math.round(row.serverCpuPercent)}% | ` +
        `${ms(row.loopDelayMaxMs)} |`
    );
  }
  return lines.join('\n');
}

function costTable(summaries: readonly ScaleSummary[]): string {
  const lines = [
    '| scale | series | updated/tick | tick CPU ms | % of one core | of which SDK collect | of which legacy store | tick wall p90 ms | first tick ms | live idle server CPU/tick ms | memory beyond SDK MB (heap + external) | per series B | first response ms | first data ms |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const s of summaries) {
    const tick = s.legacy.tickCpuMs.mean;
    lines.push(
      `| ${s.scale} | ${integer(s.series)} | ${integer(s.legacy.updatesPerTick)} | ${ms(tick)} | ${(tick / 10).toFixed(2)}% | ` +
        `${ms(s.baseline.tickCpuMs.mean)} | ${ms(tick - s.baseline.tickCpuMs.mean)} | ` +
        `${ms(s.legacy.tickWallMs.p90)} | ${ms(s.legacy.firstTick.wallMs)} | ` +
        `${ms(s.liveTickCpuMs)} | ${((s.memoryPerSeries * s.series) / 1e6).toFixed(1)} | ${integer(s.memoryPerSeries)} | ` +
        `${integer(s.firstResponseMs)} | ${integer(s.firstDataMs)} |`
    );
  }
  return lines.join('\n');
}

function targets(
  rows: readonly CaseRow[],
  summaries: readonly ScaleSummary[]
): string[] {
  const out: string[] = [];
  const check = (ok: boolean, text: string) =>
    out.push(`${ok ? 'met   ' : 'MISSED'}  ${text}`);
  for (const row of rows.filter(r => r.kind === 'legacy')) {
    const need = row.scale === 'XL' ? 0.6 : 0.8;
    const r = row.load.requestsPerSecond / row.ceiling!.requestsPerSecond;
    check(
      r >= need,
      `${row.scale} ${row.name}: ${r.toFixed(2)}× ceiling (target ≥ ${need})`
    );
    if (row.scale === 'L')
      check(
        (row.load.p99Ms ?? Infinity) < 5,
        `L ${row.name}: p99 ${ms(row.load.p99Ms)} ms (target < 5)`
      );
  }
  const perHostType = rows.find(
    r =>
      r.scale === 'L' &&
      r.kind === 'legacy' &&
      r.name === '/api/metrics/host_type/<one>'
  );
  const prometheus = rows.find(r => r.scale === 'L' && r.kind === 'prometheus');
  if (perHostType !== undefined && prometheus !== undefined) {
    const r =
      perHostType.load.requestsPerSecond /
      Math.max(prometheus.load.requestsPerSecond, 1e-9);
    check(
      r >= 100,
      `L /host_type/<one> vs Prometheus: ${ratio(r)}× (target ≥ 100)`
    );
  }
  for (const s of summaries) {
    if (s.scale === 'L') {
      const percent = s.legacy.tickCpuMs.mean / 10;
      check(
        percent <= 2,
        `L tick: ${ms(s.legacy.tickCpuMs.mean)} ms per 1 s slot = ${percent.toFixed(2)}% of one core (target ≤ 2%)`
      );
    }
    // At S the reader's fixed cost (code, empty maps, bodies) outweighs its 110 series.
    if (s.series >= 10_000) {
      check(
        s.memoryPerSeries <= 1024,
        `${s.scale} memory: ${integer(s.memoryPerSeries)} B per series beyond the SDK, heap and external (target ≤ 1024)`
      );
    }
  }
  return out;
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    // A mistyped option is read by a person: its message, without a stack.
    console.error(`npm run bench: ${(error as Error).message}`);
    process.exitCode = 2;
    return;
  }
  const missing = checkWrk();
  if (missing !== undefined) throw new Error(missing);
  const started = performance.now();
  const rows: CaseRow[] = [];
  const summaries: ScaleSummary[] = [];
  const hostRows: HostFeelRow[] = [];
  for (const name of options.scales) {
    if (!options.hostOnly) {
      const result = await benchScale(SCALES[name], options);
      rows.push(...result.rows);
      summaries.push(result.summary);
    }
    log(`[${name}] the host's event loop: legacy reader, then baseline reader`);
    hostRows.push(...(await measureHostFeel(SCALES[name], options)));
  }
  let clusterResult: ClusterResult | undefined;
  if (options.cluster !== 'none' && !options.hostOnly) {
    log(`[cluster] ${CLUSTER_WORKERS} workers at scale ${options.cluster}`);
    clusterResult = await benchCluster({
      scale: options.cluster,
      seconds: Math.max(2, Math.round(options.seconds / 3)),
      rounds: 8,
      connections: 16,
    });
  }
  const minutes = (performance.now() - started) / 60_000;
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
  const out = [
    `Machine: ${machine}. wrk: 1 thread, ${options.connections} connections, ${options.seconds} s per case ` +
      `(each legacy endpoint, the same with deprecation and usage on, and its ceiling alternate in ${ROUNDS} rounds, after ${options.warmupSeconds} s of warm-up each; ` +
      "p99 is the worse round's, corrected by wrk for coordinated omission); " +
      `${UPDATE_FRACTION * 100}% of series updated every second; ` +
      `histogramMaxBuckets ${options.histogramBuckets ?? `${DEFAULT_READER_OPTIONS.histogramMaxBuckets} (default)`}; ` +
      `the host-feel case's sliceMs ${options.sliceMs ?? `${DEFAULT_READER_OPTIONS.sliceMs} (default)`}` +
      `${options.hostV8Flags.length === 0 ? '' : `, its processes run with ${options.hostV8Flags.join(' ')}`}` +
      `${options.freshAttributes ? ', an attributes object made for each recording' : ''}` +
      `${options.sdkCountsLoop ? ", the SDK's bucket counts listed in a loop" : ''}. ` +
      `Run took ${minutes.toFixed(1)} min.`,
    ...(options.hostOnly
      ? []
      : [
          '',
          throughputTable(rows, options.seconds),
          '',
          costTable(summaries),
          '',
          ...targets(rows, summaries),
        ]),
    '',
    `What the host feels (a static route under wrk load for ${options.seconds} s, the event loop sampled at 1 ms):`,
    '',
    hostFeelTable(hostRows),
    ...(clusterResult === undefined
      ? []
      : ['', clusterTable(clusterResult), '', clusterTarget(clusterResult)]),
  ].join('\n');
  process.stdout.write(`${out}\n`);
  const dir = resolve(HERE, '../..');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'results.json'),
    JSON.stringify(
      { machine, options, rows, summaries, hostRows, cluster: clusterResult },
      null,
      2
    )
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
