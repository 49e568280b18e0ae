/**
 * The operator warnings of a deprecation's schedule, each at the moment it happens: a brownout
 * starts, a brownout ends, the sunset arrives. One unref'd timer waits for the next transition
 * on the reader's clock, armed when the app is ready and cleared when it closes; a request that
 * finds the schedule in a new phase catches up at once, for a clock that stepped past a timer.
 */
import type { ResolvedDeprecation } from '../config/deprecationOptions';
import { formatInstant } from '../config/instants';
import { emitLegacyWarning, WARNING_CODES } from '../warnings';
import { mergeWindows, type DeprecationPolicy } from './deprecation';

/** setTimeout's longest delay (2^31 − 1 ms, about 24.8 days): a later transition re-arms. */
const MAX_DELAY_MS = 2_147_483_647;

/** One moment of the schedule and its warning. */
export interface Transition {
  readonly atMs: number;
  readonly code: string;
  readonly message: string;
}

/**
 * The transitions of `settings` in time order, their messages naming `where` (the API's path,
 * e.g. `/api/metrics`). Brownouts are merged as the schedule merges them, and with an enforced
 * sunset end there: what begins after it never happens.
 */
export function transitions(
  settings: ResolvedDeprecation,
  where: string
): Transition[] {
  const { sunsetMs, enforceSunset } = settings;
  const end = enforceSunset && sunsetMs !== undefined ? sunsetMs : Infinity;
  const found: Transition[] = [];
  for (const window of mergeWindows(settings.brownouts)) {
    if (window.startMs >= end) break;
    const clipped = window.endMs >= end;
    const until = formatInstant(clipped ? end : window.endMs);
    found.push({
      atMs: window.startMs,
      code: WARNING_CODES.brownoutStarted,
      message:
        `legacy metrics API: a scheduled brownout of ${where} started: GET and HEAD answer ` +
        `410 Gone until ${until}${clipped ? ', when the sunset switches it off for good' : ''}`,
    });
    if (!clipped)
      found.push({
        atMs: window.endMs,
        code: WARNING_CODES.brownoutEnded,
        message: `legacy metrics API: the scheduled brownout of ${where} ended: GET and HEAD are answered again`,
      });
  }
  if (sunsetMs !== undefined)
    found.push({
      atMs: sunsetMs,
      code: WARNING_CODES.sunset,
      message:
        `legacy metrics API: ${where} reached its sunset (${formatInstant(sunsetMs)})` +
        (enforceSunset
          ? ': every request answers 410 Gone from now on'
          : '; it still answers, as the sunset is not enforced'),
    });
  // Stable: a brownout ending at the (unenforced) sunset is announced before it.
  return found.sort((a, b) => a.atMs - b.atMs);
}

/** Warns of each {@link Transition} once, when the clock reaches it. */
export class DeprecationAnnouncer {
  private _next = 0;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _running = false;
  private readonly _fire = (): void => this.catchUp(this._clock());

  constructor(
    private readonly _transitions: readonly Transition[],
    private readonly _clock: () => number
  ) {}

  /** Skips the transitions already past, which happened before, and waits for the next. Idempotent. */
  start(): void {
    if (this._running) return;
    this._running = true;
    const nowMs = this._clock();
    while ((this._transitions[this._next]?.atMs ?? Infinity) <= nowMs)
      this._next++;
    this._arm(nowMs);
  }

  /** Clears the timer: nothing is announced from now on. Idempotent. */
  stop(): void {
    this._running = false;
    clearTimeout(this._timer);
    this._timer = undefined;
  }

  /** Warns of every transition not yet announced at or before `nowMs`, then waits for the next. */
  catchUp(nowMs: number): void {
    if (!this._running) return;
    for (;;) {
      const transition = this._transitions[this._next];
      if (transition === undefined || transition.atMs > nowMs) break;
      this._next++;
      emitLegacyWarning(transition.code, transition.message);
    }
    this._arm(nowMs);
  }

  private _arm(nowMs: number): void {
    clearTimeout(this._timer);
    this._timer = undefined;
    const next = this._transitions[this._next];
    if (next === undefined) return;
    // The clock is read again when the timer fires: a delay cut to the maximum, or a clock that
    // moved otherwise, only re-arms.
    const delay = Math.min(Math.max(next.atMs - nowMs, 1), MAX_DELAY_MS);
    this._timer = setTimeout(this._fire, delay);
    this._timer.unref();
  }
}

/**
 * The announcer of `policy`'s transitions for the API at `where`, on `clock` (the reader's), to
 * start and stop with the API; undefined when there is nothing to announce.
 */
export function announceTransitions(
  policy: DeprecationPolicy,
  where: string,
  clock: () => number
): DeprecationAnnouncer | undefined {
  const list = transitions(policy.settings, where);
  if (list.length === 0) return undefined;
  const announcer = new DeprecationAnnouncer(list, clock);
  policy.onPhaseChange(nowMs => announcer.catchUp(nowMs));
  return announcer;
}
