/**
 * A strict parser for the subset of Erlang terms used by the messaging server's older
 * configuration files: a sequence of terms, each ended by a full stop.
 */
// Hand-written because no maintained npm package parses Erlang term files.
import { ConfigError } from '../errors';
import { shorten } from '../optionValidation';
import {
  ATOM_START,
  CONTROL_LETTER,
  describeCharacter,
  DIGIT,
  digitValue,
  HEX_DIGITS,
  MAX_NUMBER_DIGITS,
  NAME_CHARS,
  OCTAL_DIGIT,
  parseBasedDigits,
  RESERVED_WORDS,
  runLength,
  SIMPLE_ESCAPES,
  VARIABLE_START,
  WHITESPACE,
} from './termLexicon';
import { TextChunks } from './textChunks';

/** Where a node starts: 1-based line and column (columns count Unicode code points). */
export interface TermPosition {
  line: number;
  column: number;
}

/** An atom, unquoted (`abc_def@x`) or quoted (`'Any atom'`). */
export interface AtomNode extends TermPosition {
  kind: 'atom';
  value: string;
}

/** A string `"..."`; adjacent strings are concatenated as in Erlang. */
export interface StringNode extends TermPosition {
  kind: 'string';
  value: string;
}

/** A binary made of string segments, `<<"...">>` or `<<"..."/utf8>>`. */
export interface BinaryNode extends TermPosition {
  kind: 'binary';
  value: string;
}

/** An integer: decimal, `Base#Digits` or a character `$c`. */
export interface IntegerNode extends TermPosition {
  kind: 'integer';
  value: bigint;
}

/** A float such as `1.5`, `-2.0e-3`. Always finite. */
export interface FloatNode extends TermPosition {
  kind: 'float';
  value: number;
}

/** A tuple `{...}`. */
export interface TupleNode extends TermPosition {
  kind: 'tuple';
  elements: TermNode[];
}

/** A proper list `[...]`. */
export interface ListNode extends TermPosition {
  kind: 'list';
  elements: TermNode[];
}

/** Any term the parser accepts. */
export type TermNode =
  | AtomNode
  | StringNode
  | BinaryNode
  | IntegerNode
  | FloatNode
  | TupleNode
  | ListNode;

/** How deeply tuples and lists may nest before the parser gives up. */
export const MAX_TERM_DEPTH = 100;

/**
 * Parses a whole file of terms.
 * @param text the file's content
 * @param file the file's name, for error messages
 * @returns the top-level terms in file order
 * @throws ConfigError `line L, column C: found X, expected Y` on the first mistake
 */
export function parseTerms(text: string, file: string): TermNode[] {
  return new TermReader(text, file).readAll();
}

class TermReader {
  private _index = 0;
  private _line = 1;
  private _column = 1;
  private _depth = 0;

  constructor(
    private readonly _text: string,
    private readonly _file: string
  ) {}

  readAll(): TermNode[] {
    const terms: TermNode[] = [];
    // A byte order mark is not part of the text and does not count as a column.
    if (this._text.startsWith('\uFEFF')) this._index = 1;
    this._skipSpace();
    while (!this._atEnd()) {
      terms.push(this._readTerm());
      this._skipSpace();
      if (this._peek() !== '.')
        this._fail(this._describeHere(), '. to end the term');
      this._advance();
      const after = this._peek();
      if (after !== '' && after !== '%' && !WHITESPACE.test(after)) {
        this._fail(
          this._describeHere(),
          'whitespace or end of file after the full stop'
        );
      }
      this._skipSpace();
    }
    return terms;
  }

  private _readTerm(): TermNode {
    const start = this._position();
    const c = this._peek();
    if (c === '{')
      return {
        kind: 'tuple',
        elements: this._readElements('{', '}'),
        ...start,
      };
    if (c === '[')
      return { kind: 'list', elements: this._readElements('[', ']'), ...start };
    if (c === '"')
      return { kind: 'string', value: this._readStrings(), ...start };
    if (c === "'") {
      const value = new TextChunks();
      this._readQuoted("'", 'quoted atom', value);
      return { kind: 'atom', value: value.toString(), ...start };
    }
    if (c === '<' && this._peek(1) === '<')
      return { kind: 'binary', value: this._readBinary(), ...start };
    if (c === '$')
      return { kind: 'integer', value: this._readCharacter(), ...start };
    if (c === '-') {
      this._advance();
      this._skipSpace();
      if (!DIGIT.test(this._peek()))
        this._fail(this._describeHere(), 'a number after -');
      return this._negate(this._readNumber(this._position()), start);
    }
    if (DIGIT.test(c)) return this._readNumber(start);
    if (ATOM_START.test(c)) return this._readAtom(start);
    if (VARIABLE_START.test(c)) {
      const name = this._readName();
      const shown = shorten(name);
      this._failAt(
        start,
        `variable ${shown}`,
        `a term (write '${shown}' for an atom or "${shown}" for a string)`
      );
    }
    return this._fail(this._describeHere(), 'a term');
  }

  private _readElements(open: string, close: string): TermNode[] {
    const opening = this._position();
    if (this._depth >= MAX_TERM_DEPTH) {
      this._fail(
        `${open} nested ${MAX_TERM_DEPTH + 1} levels deep`,
        `at most ${MAX_TERM_DEPTH} levels of tuples and lists`
      );
    }
    this._depth++;
    this._advance();
    const elements: TermNode[] = [];
    this._skipSpace();
    if (this._peek() === close) {
      this._advance();
      this._depth--;
      return elements;
    }
    for (;;) {
      elements.push(this._readTerm());
      this._skipSpace();
      const c = this._peek();
      if (c === ',') {
        this._advance();
        this._skipSpace();
        continue;
      }
      if (c === close) break;
      if (c === '|' && close === ']')
        this._fail('|', ', or ] (lists with a tail [H | T] are not supported)');
      if (c === '') {
        this._fail(
          'end of file',
          `, or ${close} to close the ${open} opened at line ${opening.line}, column ${opening.column}`
        );
      }
      this._fail(this._describeHere(), `, or ${close}`);
    }
    this._advance();
    this._depth--;
    return elements;
  }

  /** One or more adjacent string literals, concatenated (into `value` when given). */
  private _readStrings(value = new TextChunks()): string {
    this._readQuoted('"', 'string', value);
    for (;;) {
      const saved = this._save();
      this._skipSpace();
      if (this._peek() !== '"') {
        this._restore(saved);
        return value.toString();
      }
      this._readQuoted('"', 'string', value);
    }
  }

  private _readBinary(): string {
    this._advance();
    this._advance();
    this._skipSpace();
    const value = new TextChunks();
    if (this._peek() === '>' && this._peek(1) === '>') {
      this._advance();
      this._advance();
      return '';
    }
    for (;;) {
      if (this._peek() !== '"')
        this._fail(this._describeHere(), 'a string in the binary');
      this._readStrings(value);
      this._skipSpace();
      if (this._peek() === '/') {
        this._advance();
        if (this._describeHere() !== 'utf8')
          this._fail(this._describeHere(), 'utf8 after /');
        this._readName();
        this._skipSpace();
      }
      if (this._peek() === ',') {
        this._advance();
        this._skipSpace();
        continue;
      }
      if (this._peek() === '>' && this._peek(1) === '>') break;
      this._fail(this._describeHere(), ', or >> to close the binary');
    }
    this._advance();
    this._advance();
    return value.toString();
  }

  /** A quoted string or atom into `value`: each run of plain characters as one slice of the text. */
  private _readQuoted(quote: string, what: string, value: TextChunks): void {
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
  private _skipPlain(quote: number): void {
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
  private _readCharacter(): bigint {
    this._advance();
    const c = this._peek();
    if (c === '') this._fail('end of file', 'a character after $');
    const character = c === '\\' ? this._readEscape() : this._advance();
    return BigInt(character.codePointAt(0)!);
  }

  private _readEscape(): string {
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
          this._fail(
            this._describeHere(),
            'hexadecimal digits and } in \\x{...}'
          );
        this._advance();
      } else {
        digits = this._take(
          Math.min(2, runLength(HEX_DIGITS, this._text, this._index))
        );
        if (digits.length < 2)
          this._fail(this._describeHere(), 'two hexadecimal digits after \\x');
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
      if (!CONTROL_LETTER.test(letter))
        this._fail(this._describeHere(), 'a letter after \\^');
      this._advance();
      return String.fromCharCode(letter.charCodeAt(0) & 31);
    }
    return this._failAt(
      start,
      `\\${this._describeCharacterHere()}`,
      'an escape sequence such as \\n, \\t, \\s, \\", \\\\ or \\x{41}'
    );
  }

  private _readNumber(start: TermPosition): IntegerNode | FloatNode {
    const digits = this._readDigits(10, 'a digit', start);
    if (this._peek() === '#') {
      const base = Number(digits);
      if (base < 2 || base > 36)
        this._failAt(
          start,
          `base ${shorten(digits)}`,
          'a base from 2 to 36 before #'
        );
      this._advance();
      const based = this._readDigits(base, `a base ${base} digit`, start);
      return {
        kind: 'integer',
        value: parseBasedDigits(based, base),
        ...start,
      };
    }
    if (this._peek() === '.' && DIGIT.test(this._peek(1))) {
      this._advance();
      let text = `${digits}.${this._readDigits(10, 'a digit', start)}`;
      const e = this._peek();
      if (e === 'e' || e === 'E') {
        this._advance();
        text += 'e';
        const sign = this._peek();
        if (sign === '+' || sign === '-') text += this._advance();
        text += this._readDigits(10, 'a digit in the exponent', start);
      }
      const value = Number(text);
      if (!Number.isFinite(value))
        this._failAt(
          start,
          `the float ${shorten(text)}`,
          'a float within the range of a double'
        );
      return { kind: 'float', value, ...start };
    }
    return { kind: 'integer', value: BigInt(digits), ...start };
  }

  /**
   * Digits of `base` with single `_` between them, returned without the underscores; at most
   * {@link MAX_NUMBER_DIGITS}, else an error at `start`, where the number begins.
   */
  private _readDigits(
    base: number,
    expected: string,
    start: TermPosition
  ): string {
    const text = this._text;
    const isDigit = (at: number): boolean =>
      at < text.length && digitValue(text.charCodeAt(at)) < base;
    if (!isDigit(this._index)) this._fail(this._describeHere(), expected);
    const from = this._index;
    let end = from + 1;
    let count = 1;
    for (;;) {
      if (isDigit(end)) end++;
      else if (text[end] === '_' && isDigit(end + 1)) end += 2;
      else break;
      if (++count > MAX_NUMBER_DIGITS)
        this._failAt(
          start,
          `a number of more than ${MAX_NUMBER_DIGITS} digits`,
          `at most ${MAX_NUMBER_DIGITS} digits`
        );
    }
    return this._take(end - from).replace(UNDERSCORES, '');
  }

  private _negate(
    node: IntegerNode | FloatNode,
    start: TermPosition
  ): IntegerNode | FloatNode {
    return node.kind === 'integer'
      ? { kind: 'integer', value: -node.value, ...start }
      : { kind: 'float', value: -node.value, ...start };
  }

  private _readAtom(start: TermPosition): AtomNode {
    const name = this._readName();
    if (RESERVED_WORDS.has(name))
      this._failAt(
        start,
        `reserved word ${name}`,
        `a term (write '${name}' for an atom)`
      );
    return { kind: 'atom', value: name, ...start };
  }

  private _readName(): string {
    return this._take(runLength(NAME_CHARS, this._text, this._index));
  }

  /** Consumes the next `length` UTF-16 units, which hold no line break and no surrogate. */
  private _take(length: number): string {
    const taken = this._text.slice(this._index, this._index + length);
    this._index += length;
    this._column += length;
    return taken;
  }

  private _skipSpace(): void {
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
  private _peek(offset = 0): string {
    return this._text.charAt(this._index + offset);
  }

  private _atEnd(): boolean {
    return this._index >= this._text.length;
  }

  /** Consumes one code point and returns it. */
  private _advance(): string {
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

  private _position(): TermPosition {
    return { line: this._line, column: this._column };
  }

  private _save(): [number, number, number] {
    return [this._index, this._line, this._column];
  }

  private _restore([index, line, column]: [number, number, number]): void {
    this._index = index;
    this._line = line;
    this._column = column;
  }

  private _describeHere(): string {
    if (this._atEnd()) return 'end of file';
    const c = String.fromCodePoint(this._text.codePointAt(this._index)!);
    if (ATOM_START.test(c) || VARIABLE_START.test(c)) {
      const saved = this._save();
      const name = this._readName();
      this._restore(saved);
      return shorten(name);
    }
    return this._describeCharacterHere();
  }

  private _describeCharacterHere(): string {
    return this._atEnd()
      ? 'end of file'
      : describeCharacter(
          String.fromCodePoint(this._text.codePointAt(this._index)!)
        );
  }

  private _fail(found: string, expected: string): never {
    return this._failAt(this._position(), found, expected);
  }

  private _failAt(at: TermPosition, found: string, expected: string): never {
    throw new ConfigError(
      this._file,
      `line ${at.line}, column ${at.column}`,
      `found ${found}, expected ${expected}`
    );
  }
}

const UNDERSCORES = /_/g;

/** Whether the unit at `i` is the second half of a surrogate pair, which {@link TermReader} columns do not count. */
function isLowSurrogateAfterHigh(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 0xdc00 || code > 0xdfff || i === 0) return false;
  const before = text.charCodeAt(i - 1);
  return before >= 0xd800 && before <= 0xdbff;
}
