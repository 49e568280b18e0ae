/**
 * One line of progress on a terminal's stderr, rewritten in place, for work that lasts: silent for
 * its first two seconds, when stderr is not a terminal, or when asked to be quiet.
 */

/** How long work runs before its progress shows. */
export const PROGRESS_AFTER_MS = 2_000;
/** How often the line is rewritten at most. */
const REFRESH_MS = 250;

/** A progress line: `update` as often as convenient, `done` once. */
export class ProgressLine {
  private readonly _startedAt = Date.now();
  private _shownAt: number | undefined;

  constructor(
    private readonly _stream: NodeJS.WriteStream,
    private readonly _quiet: boolean
  ) {}

  /** Shows `text` when the work has lasted long enough and the last update is not too recent. */
  update(text: () => string): void {
    if (this._quiet || this._stream.isTTY !== true) return;
    const now = Date.now();
    if (now - this._startedAt < PROGRESS_AFTER_MS) return;
    if (this._shownAt !== undefined && now - this._shownAt < REFRESH_MS) return;
    this._shownAt = now;
    this._stream.write(`\r${text()}\u001b[K`);
  }

  /** Erases the line, if it was shown. */
  done(): void {
    if (this._shownAt !== undefined) this._stream.write('\r\u001b[K');
    this._shownAt = undefined;
  }
}
