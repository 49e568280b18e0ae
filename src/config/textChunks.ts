/**
 * A string built from many pieces in time and memory linear in its length: pieces are kept in
 * an array and joined once, never concatenated one by one (which builds a tree of a node per
 * piece, tens of bytes for every character of a long string).
 */
export class TextChunks {
  private readonly _parts: string[] = [];
  /** Short pieces (single escapes) waiting to be joined into one part. */
  private _small: string[] = [];

  /** Adds a piece: a slice of the text read, or the character an escape stands for. */
  push(piece: string): void {
    if (piece.length >= SHORT_PIECE) {
      this._flush();
      this._parts.push(piece);
      return;
    }
    this._small.push(piece);
    if (this._small.length >= SMALL_BATCH) this._flush();
  }

  /** The whole string. */
  toString(): string {
    this._flush();
    return this._parts.length === 1 ? this._parts[0]! : this._parts.join('');
  }

  private _flush(): void {
    if (this._small.length === 0) return;
    this._parts.push(this._small.join(''));
    this._small = [];
  }
}

/** Pieces shorter than this are gathered before they join the parts. */
const SHORT_PIECE = 64;
/** How many short pieces are joined at a time, so that the parts stay few. */
const SMALL_BATCH = 1024;
