/**
 * Deprecation signalling of the legacy API: the headers every response carries (RFC 9745
 * `Deprecation`, RFC 8594 `Sunset`, RFC 8288 `Link`), the 410 Gone of brownouts and of an
 * enforced sunset, and the in-band `legacyApiSunsetDays` metric. Everything is prepared when the
 * options are read; a request costs a clock read and a comparison.
 */
import type {
  DeprecationOptions,
  ResolvedDeprecation,
} from '../config/deprecationOptions';
import { formatInstant } from '../config/instants';
import {
  DEPRECATION_EXPECTED,
  parseHttpUrl,
  resolveDeprecation,
} from '../config/resolveDeprecation';
import { invalidOption, optionPath, unknownOption } from '../optionValidation';
import { jsonSerializer } from '../snapshot/jsonSerializer';
import { xmlSerializer } from '../snapshot/xmlSerializer';
import type { LegacyFormat } from './contentNegotiation';

/** Deprecation options of the plugin and of the standalone server. */
export interface LegacyApiDeprecationOptions {
  /**
   * Announce the API's end on every response, and optionally brown it out and switch it off.
   * @default undefined (responses stay exactly as the original's)
   */
  deprecation?: DeprecationOptions;
  /**
   * The successor URL of a `deprecation` that names none. `createMeterProviderWithLegacyApi`
   * gives its Prometheus URL here (in `legacyApiOptions`).
   * @default undefined
   */
  defaultSuccessor?: string;
}

/** What the API answers at one instant: normally, or 410 Gone with prepared bodies. */
interface Phase {
  /** The phase holds for `[fromMs, toMs)`. */
  readonly fromMs: number;
  readonly toMs: number;
  /** 410 bodies by format, or undefined when the API answers normally. */
  readonly gone: GoneBodies | undefined;
  /** Whether the 410 applies to every method (the sunset), or only GET and HEAD (a brownout). */
  readonly everyMethod: boolean;
}

/** The 410 bodies, one per format. */
export type GoneBodies = Readonly<Record<LegacyFormat, Buffer>>;

const DAY_MS = 86_400_000;
/** The phase `[fromMs, toMs)`: 410 Gone with `message` when given, else answering normally. */
function phaseOf(
  fromMs: number,
  toMs: number,
  message?: string,
  everyMethod = false
): Phase {
  const gone =
    message === undefined
      ? undefined
      : {
          json: Buffer.from(jsonSerializer.error('gone', message)),
          xml: Buffer.from(xmlSerializer.error('gone', message)),
        };
  return { fromMs, toMs, gone, everyMethod };
}

/** `[start, end)` windows merged where they overlap or touch, in order. */
export function mergeWindows(
  windows: ResolvedDeprecation['brownouts']
): Array<{ startMs: number; endMs: number }> {
  const sorted = [...windows].sort((a, b) => a.startMs - b.startMs);
  const merged: Array<{ startMs: number; endMs: number }> = [];
  for (const window of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && window.startMs <= last.endMs)
      last.endMs = Math.max(last.endMs, window.endMs);
    else merged.push({ ...window });
  }
  return merged;
}

/**
 * The `deprecation` option at `path` (e.g. `listeners[0].handlerGroups[1].deprecation`), resolved,
 * with `defaultSuccessor` as its successor when it names none; undefined when left out.
 * @throws InvalidOptionError naming the full path of the first invalid setting
 */
export function deprecationOption(
  path: string,
  value: unknown,
  defaultSuccessor?: string
): ResolvedDeprecation | undefined {
  if (value === undefined) return undefined;
  const settings = resolveDeprecation(value, 'camel', problem => {
    const at = problem.path === '' ? path : optionPath(path, problem.path);
    return problem.unknownKey === true
      ? unknownOption(at, problem.expected)
      : invalidOption(at, problem.found, problem.expected);
  });
  return settings.successor === undefined && defaultSuccessor !== undefined
    ? { ...settings, successor: defaultSuccessor }
    : settings;
}

/**
 * The `defaultSuccessor` option at `path`, normalized by the URL parser; undefined when left out.
 * @throws InvalidOptionError when it is not an absolute http(s) URL
 */
export function defaultSuccessorOption(
  path: string,
  value: unknown
): string | undefined {
  if (value === undefined) return undefined;
  const href = parseHttpUrl(value);
  if (href === undefined) invalidOption(path, value, DEPRECATION_EXPECTED.url);
  return href;
}

/**
 * A resolved deprecation, ready to serve: the headers, the schedule of phases with their 410
 * bodies, and the in-band metric's value. Built once per registration of the API.
 */
export class DeprecationPolicy {
  /** Header name and value pairs every legacy response carries. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  private readonly _phases: readonly Phase[];
  /** The phase of the last request: requests mostly fall into the same one. */
  private _current: Phase;
  private _onPhaseChange: ((nowMs: number) => void) | undefined;

  constructor(readonly settings: ResolvedDeprecation) {
    const headers: Array<[string, string]> = [
      ['deprecation', `@${Math.floor(settings.sinceMs / 1000)}`],
    ];
    if (settings.sunsetMs !== undefined)
      headers.push(['sunset', new Date(settings.sunsetMs).toUTCString()]);
    const links: string[] = [];
    if (settings.successor !== undefined)
      links.push(`<${settings.successor}>; rel="successor-version"`);
    if (settings.documentation !== undefined)
      links.push(
        `<${settings.documentation}>; rel="deprecation"; type="text/html"`
      );
    if (links.length > 0) headers.push(['link', links.join(', ')]);
    this.headers = headers;
    this._phases = this._schedule();
    this._current = this._phases[0]!;
  }

  /**
   * The days left until the sunset at `timeMs`, rounded up: the whole last day reads 1, and 0
   * means the sunset has passed.
   */
  daysLeft(timeMs: number): number {
    const sunsetMs = this.settings.sunsetMs;
    if (sunsetMs === undefined || timeMs >= sunsetMs) return 0;
    return Math.ceil((sunsetMs - timeMs) / DAY_MS);
  }

  /**
   * Calls `listener` with the time whenever a request finds the schedule in another phase than
   * the request before: the clock may have stepped past a transition its timer waits for.
   */
  onPhaseChange(listener: (nowMs: number) => void): void {
    this._onPhaseChange = listener;
  }

  /**
   * The 410 Gone bodies (JSON and XML) when the API is browned out for a `method` request
   * (GET and HEAD) or switched off (every method) at `nowMs`; undefined when it answers normally.
   * Every legacy response carries {@link headers} either way.
   */
  gone(method: string, nowMs: number): GoneBodies | undefined {
    let phase = this._current;
    if (nowMs < phase.fromMs || nowMs >= phase.toMs) {
      phase = this._phaseAt(nowMs);
      this._current = phase;
      this._onPhaseChange?.(nowMs);
    }
    return phase.everyMethod || method === 'GET' || method === 'HEAD'
      ? phase.gone
      : undefined;
  }

  /** The phase of `nowMs`, which is never NaN here: the phases cover every other instant. */
  private _phaseAt(nowMs: number): Phase {
    return this._phases.find(p => nowMs >= p.fromMs && nowMs < p.toMs)!;
  }

  /** Every phase from the beginning of time to its end, each with its bodies prepared. */
  private _schedule(): Phase[] {
    const { sunsetMs, enforceSunset, successor } = this.settings;
    const use = successor === undefined ? '' : `; use ${successor} instead`;
    const sunset =
      sunsetMs === undefined
        ? ''
        : `; it will be switched off for good at ${formatInstant(sunsetMs)}`;
    const end = enforceSunset && sunsetMs !== undefined ? sunsetMs : Infinity;
    const phases: Phase[] = [];
    let at = -Infinity;
    for (const window of mergeWindows(this.settings.brownouts)) {
      if (window.startMs >= end) break;
      const endMs = Math.min(window.endMs, end);
      phases.push(
        phaseOf(at, window.startMs),
        phaseOf(
          window.startMs,
          endMs,
          'the legacy metrics API is being switched off: this scheduled brownout lasts until ' +
            `${formatInstant(window.endMs)}${sunset}${use}`
        )
      );
      at = endMs;
    }
    phases.push(phaseOf(at, end));
    if (end !== Infinity) {
      const message = `the legacy metrics API was switched off at ${formatInstant(end)}${use}`;
      phases.push(phaseOf(end, Infinity, message, true));
    }
    return phases;
  }
}
