/**
 * `compare`: the legacy API and the Prometheus exposition of one server, read together, metric by
 * metric and key by key. The exposition is read all along and indexed once per read; each legacy
 * map is compared with the reads that bracket it, and a read is dropped once no legacy map still
 * needs it, so that time and memory grow with the server, not with its square.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_READER_OPTIONS } from '../reader/options';
import { getOrMake } from '../getOrMake';
import { ExpositionIndex, type ExpositionRead } from './expositionIndex';
import {
  fetchMetricsMap,
  groupsOf,
  legacyBase,
  readExposition as readFromServer,
  type LegacyMetricValue,
} from './fetchServer';
import type { SeriesPlacement } from './legacyUrl';
import { compareKey, notComparedReason, type KeyResult } from './keyComparison';
import { kindOfValue } from './metricCatalog';
import { SeriesMatcher, seriesText } from './seriesMatch';
import { SAMPLE_INTERVAL_MS, TOLERANCES } from './compareTolerances';

/** How late a reader's tick may run on a busy machine, beyond its slot. */
const TICK_MARGIN_MS = 250;

/** How often a disagreement is measured again before it counts: values move while they are read. */
export const COMPARE_ROUNDS = 3;

/** A read of the exposition starts at most once per this many times its duration. */
const READ_SHARE = 3;

/** Legacy maps read at once. */
const LEGACY_CONCURRENCY = 8;

/** Exposition values kept at most (8 bytes each): reads beyond are thinned, ends kept. */
const MAX_KEPT_VALUES = 16_000_000;
/** Exposition reads kept at most. */
const MAX_KEPT_READS = 64;

/** How far `compare` has come, for a progress line. */
export interface CompareProgress {
  readonly round: number;
  /** Exposition reads so far. */
  readonly reads: number;
  /** Maps (host types, hosts, global) compared in this round, of `groups`. */
  readonly groupsDone: number;
  readonly groups: number;
  /** Keys compared so far. */
  readonly keys: number;
}

/** Options of {@link compareServers}. */
export interface CompareOptions {
  /** The legacy API's base, e.g. `http://127.0.0.1:8088/api`. */
  readonly legacy: string;
  /** The server's Prometheus endpoint, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly prometheus: string;
  /** Host types (or hosts) to compare. @default every one the listing names, and the global metrics */
  readonly hostTypes?: readonly string[];
  /** The legacy reader's slot. @default 1000 */
  readonly slotMs?: number;
  /** Called after each exposition read. */
  readonly onProgress?: (progress: CompareProgress) => void;
}

/** One compared key. */
export interface ComparedKey extends KeyResult {
  readonly metric: string;
  readonly key: string;
}

/** The keys of one host type, host, or the global metrics. */
export interface ComparedGroup {
  /** The host type or host, raw; `global` for the global metrics. */
  readonly group: string;
  readonly placement: SeriesPlacement['label'];
  readonly keys: readonly ComparedKey[];
}

/** The whole comparison. */
export interface Comparison {
  readonly legacy: string;
  readonly prometheus: string;
  readonly tolerances: Readonly<Record<string, string>>;
  readonly groups: readonly ComparedGroup[];
  readonly disagreements: number;
}

interface Answer {
  readonly group: number;
  readonly requestedAt: number;
  readonly answeredAt: number;
  readonly map: Map<string, LegacyMetricValue>;
}

/**
 * Reads the legacy API and the exposition together and compares every key of every metric, per
 * host type (and the global metrics). A disagreement is measured again, up to
 * {@link COMPARE_ROUNDS} times, before it counts.
 */
export async function compareServers(
  options: CompareOptions
): Promise<Comparison> {
  const slotMs = options.slotMs ?? DEFAULT_READER_OPTIONS.slotMs;
  const base = legacyBase(options.legacy);
  const { listing, groups } = await groupsOf(options.hostTypes, base);
  const index = new ExpositionIndex(listing.variant);
  const results = groups.map(() => new Map<string, ComparedKey>());
  const names = [...listing.metrics, ...listing.global];
  let reads = 0;
  let keys = 0;

  const readExposition = (): Promise<ExpositionRead> => {
    reads++;
    return readFromServer(options.prometheus, index);
  };

  /** One round: reads the maps of `wanted` (group → the metric/key ids still to compare, or all). */
  const round = async (
    number: number,
    wanted: Map<number, Set<string> | undefined>
  ): Promise<void> => {
    const kept: ExpositionRead[] = [await readExposition()];
    let slowestRead = Date.now() - kept[0]!.startedAt;
    const matcher = new SeriesMatcher(index.families.values(), names);
    const order = [...wanted.keys()];
    const inFlight = new Set<{ requestedAt: number }>();
    const answers: Answer[] = [];
    let fetching = true;
    let groupsDone = 0;
    const legacy = (async () => {
      // The legacy API serves the snapshot of the last slot: wait one after the first read, so
      // that it was taken after that read, and a little more for a tick that runs late.
      await sleep(slotMs + TICK_MARGIN_MS);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < order.length) {
          const group = order[next++]!;
          const request = { requestedAt: Date.now() };
          inFlight.add(request);
          const map = await fetchMetricsMap(groups[group]!.url, {
            tool: 'compare',
          });
          inFlight.delete(request);
          answers.push({
            group,
            requestedAt: request.requestedAt,
            answeredAt: Date.now(),
            map: map ?? new Map(),
          });
        }
      };
      await Promise.all(Array.from({ length: LEGACY_CONCURRENCY }, worker));
    })().finally(() => {
      fetching = false;
    });
    // Its failure is thrown once the reads it answered are compared, not reported as unhandled.
    void legacy.catch(() => undefined);
    const lateness = (): number => slotMs + TICK_MARGIN_MS + slowestRead;

    const settle = (): void => {
      const latest = kept[kept.length - 1]!;
      for (let i = 0; i < answers.length;) {
        const answer = answers[i]!;
        if (latest.startedAt < answer.answeredAt) {
          i++;
          continue;
        }
        answers.splice(i, 1);
        const end = kept.findIndex(r => r.startedAt >= answer.answeredAt);
        const bound = answer.requestedAt - lateness();
        let start = 0;
        while (start + 1 < end && kept[start + 1]!.startedAt <= bound) start++;
        compareGroup(answer, kept.slice(start, end + 1));
        groupsDone++;
      }
    };

    const compareGroup = (answer: Answer, bracket: ExpositionRead[]): void => {
      const group = groups[answer.group]!;
      const only = wanted.get(answer.group);
      const into = results[answer.group]!;
      for (const [metric, value] of answer.map) {
        const kind = kindOfValue(value);
        if (kind === undefined) continue;
        const match = matcher.match(metric, kind);
        for (const key of Object.keys(value)) {
          if (typeof value[key] !== 'number') continue;
          const id = `${metric}\u0000${key}`;
          if (only !== undefined && !only.has(id)) continue;
          keys++;
          if (match.status === 'collision') {
            const unexposed = notComparedReason(key);
            into.set(id, {
              metric,
              key,
              legacy: value[key] as number,
              prometheus: undefined,
              ...(unexposed !== undefined
                ? { agree: 'not compared', why: unexposed }
                : { agree: false, why: match.why, lasting: true }),
            });
            continue;
          }
          const result = compareKey(
            { index, reads: bracket },
            match.series,
            group.placement,
            value,
            key
          );
          into.set(id, {
            metric,
            key,
            ...result,
            ...(result.agree === false &&
            match.status === 'missing' &&
            result.why === undefined
              ? {
                  why: `no series of the exposition gives ${metric} (looked for ${seriesText(match.series)})`,
                }
              : {}),
          });
        }
      }
    };

    const prune = (): void => {
      let lowWater = Date.now();
      for (const r of inFlight) lowWater = Math.min(lowWater, r.requestedAt);
      for (const a of answers) lowWater = Math.min(lowWater, a.requestedAt);
      lowWater -= lateness();
      let drop = 0;
      while (drop + 1 < kept.length && kept[drop + 1]!.startedAt <= lowWater)
        drop++;
      kept.splice(0, drop);
      const most = Math.min(
        MAX_KEPT_READS,
        Math.max(3, Math.floor(MAX_KEPT_VALUES / Math.max(1, index.slotCount)))
      );
      // Past the cap, every other read in the middle goes: the ends of each bracket stay.
      for (let i = kept.length - 2; kept.length > most && i >= 1; i -= 2)
        kept.splice(i, 1);
    };

    for (;;) {
      settle();
      prune();
      options.onProgress?.({
        round: number,
        reads,
        groupsDone,
        groups: order.length,
        keys,
      });
      if (!fetching && answers.length === 0) break;
      const startedAt = Date.now();
      kept.push(await readExposition());
      const took = Date.now() - startedAt;
      slowestRead = Math.max(slowestRead, took);
      // A large exposition keeps the server busy while it is written: leave the legacy API most
      // of the server's time, and read once more at once when the legacy side is done.
      const nextReadAt =
        startedAt + Math.max(SAMPLE_INTERVAL_MS, READ_SHARE * took);
      if (fetching) await sleep(Math.max(0, nextReadAt - Date.now()));
    }
    await legacy;
  };

  let wanted = new Map<number, Set<string> | undefined>(
    groups.map((_, i) => [i, undefined])
  );
  for (let number = 1; number <= COMPARE_ROUNDS && wanted.size > 0; number++) {
    await round(number, wanted);
    const next = new Map<number, Set<string>>();
    for (const [group] of wanted)
      for (const [id, result] of results[group]!)
        if (result.agree === false && result.lasting !== true)
          getOrMake(next, group, () => new Set()).add(id);
    wanted = next;
  }
  let disagreements = 0;
  const compared = groups.map((group, i): ComparedGroup => {
    const sorted = [...results[i]!.values()].sort(byMetricAndKey);
    for (const k of sorted) if (k.agree === false) disagreements++;
    return {
      group: group.name,
      placement: group.placement.label,
      keys: sorted,
    };
  });
  return {
    legacy: base,
    prometheus: options.prometheus,
    tolerances: TOLERANCES,
    groups: compared,
    disagreements,
  };
}

function byMetricAndKey(a: ComparedKey, b: ComparedKey): number {
  if (a.metric !== b.metric) return a.metric < b.metric ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
