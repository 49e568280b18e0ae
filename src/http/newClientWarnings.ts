/**
 * The operator warnings about new clients of the legacy API, bounded per minute: a busy server
 * that 200 pollers reach at start logs the first few one by one, then one summary per minute
 * instead of a line per client.
 */
import { emitLegacyWarning, WARNING_CODES } from '../warnings';

/** How many new clients a minute are warned about one by one; the rest go into the summary. */
export const NEW_CLIENT_WARNINGS_PER_MINUTE = 10;

const MINUTE_MS = 60_000;

export class NewClientWarnings {
  /** When the current minute started; -Infinity before the first new client. */
  private _minuteStartMs = -Infinity;
  private _warned = 0;
  private _unwarned = 0;
  /** The first client of the current minute left to the summary. */
  private _firstUnwarned = '';

  /** `on: false` (`usage.logNewClients: false`) never warns. */
  constructor(private readonly _on: boolean) {}

  /**
   * A new client (`description`: address, User-Agent, first request) arrived at `nowMs`: warns
   * about it, or counts it in the minute's summary once the minute's warnings are spent.
   */
  newClient(nowMs: number, description: string): void {
    if (!this._on) return;
    this.tick(nowMs);
    if (this._minuteStartMs === -Infinity) {
      this._minuteStartMs = nowMs;
      this._warned = 0;
    }
    if (this._warned < NEW_CLIENT_WARNINGS_PER_MINUTE) {
      this._warned++;
      emitLegacyWarning(
        WARNING_CODES.newClient,
        `legacy metrics API: first request from a new client: ${description}`
      );
    } else if (this._unwarned++ === 0) this._firstUnwarned = description;
  }

  /**
   * Closes the minute when it is over at `nowMs` (or the clock stepped back), with the summary
   * of the clients it left out. Called on every request: a comparison when nothing is due.
   */
  tick(nowMs: number): void {
    if (nowMs < this._minuteStartMs + MINUTE_MS && nowMs >= this._minuteStartMs)
      return;
    this.flush();
    this._minuteStartMs = -Infinity;
  }

  /** Warns of the clients left out of the warnings so far (at the minute's end, or at stop). */
  flush(): void {
    if (this._unwarned === 0) return;
    emitLegacyWarning(
      WARNING_CODES.newClient,
      `legacy metrics API: ${this._unwarned} more new clients in the last minute; first: ${this._firstUnwarned}`
    );
    this._unwarned = 0;
    this._firstUnwarned = '';
  }

  /** Warns that the client table is full (`message`), unless warnings are off. */
  tableFull(message: string): void {
    if (this._on) emitLegacyWarning(WARNING_CODES.newClient, message);
  }
}
