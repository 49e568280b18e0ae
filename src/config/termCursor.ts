/**
 * The lexical layer of the term parser: a position in the text (line and column, counted in
 * code points), quoted strings and atoms with their escapes, names, blank space and comments,
 * and the ConfigError at a position.
 */
import { ConfigError } from '../errors';
import { shorten } from '../optionValidation';
import {
  ATOM_START,
  CONTROL_LETTER,
  describeCharacter,
  HEX_DIGITS,
  NAME_CHARS,
  OCTAL_DIGIT,
  runLength,
  SIMPLE_ESCAPES,
  VARIABLE_START,
  WHITESPACE,
} from './termLexicon';
import { placeOf, type TermPosition } from './termNodes';
import { type TextChunks } from './textChunks';

/** Reads a term file from its start; the parser builds terms on top of it. */
export class TermCursor {
  protected _index = 0;
  protected _line = 1;
  protected _column = 1;

  constructor(
    protected readonly _text: string,
    protected readonly _file: string
  ) {}

  /** A quoted string or atom into `value`: each run of plain characters as one slice of the text. */
  protected _readQuoted(quote: string, what: string, value: TextChunks): void {
    const opening = this._position();
    this._advance();
    for (;;) {
      const from = this._index;
      this._skipPlain(quote.charCodeAt(0));
      if (this._index > from) value.push(this._text.slice(from, this._index));
      const c = this._peek();
      if (c === '') {
        this._fail(
          'end of file',
          `${quote} to close the ${what} opened at line ${opening.line}, column ${opening.column}`
        );
      }
      if (c === quote) {
        this._advance();
        return;
      }
      value.push(this._readEscape());
    }
  }

  /** Moves past characters other than `quote` and `\`, counting lines and columns as {@link _advance} does. */
  protected _skipPlain(quote: number): void {
    const text = this._text;
    let i = this._index;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === quote || code === 0x5c) break;
      if (code === 10) {
        this._line++;
        this._column = 1;
      } else if (!isLowSurrogateAfterHigh(text, i)) {
        this._column++;
      }
    }
    this._index = i;
  }

  /** `$c` or `$\n`: the character's code point. */
  protected _readCharacter(): bigint {
    this._advance();
    const c = this._peek();
    if (c === '') this._fail('end of file', 'a character after $');
    const character = c === '\\' ? this._readEscape() : this._advance();
    return BigInt(character.codePointAt(0)!);
  }

  protected _readEscape(): string {
    const start = this._position();
    this._advance();
    const c = this._peek();
    if (c === '') this._fail('end of file', 'an escape sequence after \\');
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      this._advance();
      return simple;
    }
    if (OCTAL_DIGIT.test(c)) {
      let digits = '';
      while (digits.length < 3 && OCTAL_DIGIT.test(this._peek()))
        digits += this._advance();
      return String.fromCodePoint(parseInt(digits, 8));
    }
    if (c === 'x') {
      this._advance();
      let digits: string;
      if (this._peek() === '{') {
        this._advance();
        digits = this._take(runLength(HEX_DIGITS, this._text, this._index));
        if (digits === '' || this._peek() !== '}')
          this._unexpected('hexadecimal digits and } in \\x{...}');
        this._advance();
      } else {
        digits = this._take(
          Math.min(2, runLength(HEX_DIGITS, this._text, this._index))
        );
        if (digits.length < 2)
          this._unexpected('two hexadecimal digits after \\x');
      }
      const code = parseInt(digits, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        this._failAt(start, `\\x{${shorten(digits)}}`, 'a Unicode code point');
      }
      return String.fromCodePoint(code);
    }
    if (c === '^') {
      this._advance();
      const letter = this._peek();
      if (!CONTROL_LETTER.test(letter)) this._unexpected('a letter after \\^');
      this._advance();
      return String.fromCharCode(letter.charCodeAt(0) & 31);
    }
    return this._failAt(
      start,
      `\\${this._describeCharacterHere()}`,
      'an escape sequence such as \\n, \\t, \\s, \\", \\\\ or \\x{41}'
    );
  }

  protected _readName(): string {
    return this._take(runLength(NAME_CHARS, this._text, this._index));
  }

  /** Consumes the next `length` UTF-16 units, which hold no line break and no surrogate. */
  protected _take(length: number): string {
    const taken = this._text.slice(this._index, this._index + length);
    this._index += length;
    this._column += length;
    return taken;
  }

  protected _skipSpace(): void {
    for (;;) {
      const c = this._peek();
      if (c === '%') {
        while (this._peek() !== '' && this._peek() !== '\n') this._advance();
      } else if (c !== '' && WHITESPACE.test(c)) {
        this._advance();
      } else {
        return;
      }
    }
  }

  /** The next UTF-16 unit (`offset` units ahead), or `''` at the end. */
  protected _peek(offset = 0): string {
    return this._text.charAt(this._index + offset);
  }

  protected _atEnd(): boolean {
    return this._index >= this._text.length;
  }

  /** Consumes one code point and returns it. */
  protected _advance(): string {
    const code = this._text.codePointAt(this._index)!;
    const character = String.fromCodePoint(code);
    this._index += character.length;
    if (code === 10) {
      this._line++;
      this._column = 1;
    } else {
      this._column++;
    }
    return character;
  }

  protected _position(): TermPosition {
    return { line: this._line, column: this._column };
  }

  protected _save(): [number, number, number] {
    return [this._index, this._line, this._column];
  }

  protected _restore([index, line, column]: [number, number, number]): void {
    this._index = index;
    this._line = line;
    this._column = column;
  }

  protected _describeHere(): string {
    const c = this._peek();
    if (ATOM_START.test(c) || VARIABLE_START.test(c)) {
      const length = runLength(NAME_CHARS, this._text, this._index);
      return shorten(this._text.slice(this._index, this._index + length));
    }
    return this._describeCharacterHere();
  }

  protected _describeCharacterHere(): string {
    return this._atEnd()
      ? 'end of file'
      : describeCharacter(
          String.fromCodePoint(this._text.codePointAt(this._index)!)
        );
  }

  /** `found <what is here>, expected <expected>` at the current position. */
  protected _unexpected(expected: string): never {
    return this._fail(this._describeHere(), expected);
  }

  protected _fail(found: string, expected: string): never {
    return this._failAt(this._position(), found, expected);
  }

  protected _failAt(at: TermPosition, found: string, expected: string): never {
    throw new ConfigError(
      this._file,
      placeOf(at),
      `found ${found}, expected ${expected}`
    );
  }
}

/** Whether the unit at `i` is the second half of a surrogate pair, which {@link TermCursor} columns do not count. */
function isLowSurrogateAfterHigh(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 0xdc00 || code > 0xdfff || i === 0) return false;
  const before = text.charCodeAt(i - 1);
  return before >= 0xd800 && before <= 0xdbff;
}
