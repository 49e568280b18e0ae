/**
 * A strict parser for the subset of Erlang terms used by the messaging server's older
 * configuration files: a sequence of terms, each ended by a full stop.
 */
// Hand-written because no maintained npm package parses Erlang term files.
import { ConfigError } from '../errors';

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
 * Words that Erlang reserves: written unquoted they are not atoms.
 * https://www.erlang.org/doc/system/reserved_words.html
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'after',
  'and',
  'andalso',
  'band',
  'begin',
  'bnot',
  'bor',
  'bsl',
  'bsr',
  'bxor',
  'case',
  'catch',
  'cond',
  'div',
  'else',
  'end',
  'fun',
  'if',
  'let',
  'maybe',
  'not',
  'of',
  'or',
  'orelse',
  'receive',
  'rem',
  'try',
  'when',
  'xor',
]);

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  d: '\x7f',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  s: ' ',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
};

const ATOM_START = /[a-z]/;
const NAME_CHAR = /[A-Za-z0-9_@]/;
const VARIABLE_START = /[A-Z_]/;
const DIGIT = /[0-9]/;
const OCTAL_DIGIT = /[0-7]/;
const HEX_DIGIT = /[0-9A-Fa-f]/;
const WHITESPACE = /[ \t\n\r\f\v]/;
const CONTROL_LETTER = /[A-Za-z]/;
/** For each base from 2 to 36, a pattern matching one of its digits (either case). */
const BASE_DIGITS: readonly RegExp[] = Array.from(
  { length: 37 },
  (_, base) =>
    new RegExp(
      `[${'0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, Math.max(base, 1))}]`,
      'i'
    )
);

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
    if (c === "'")
      return {
        kind: 'atom',
        value: this._readQuoted("'", 'quoted atom'),
        ...start,
      };
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
      this._failAt(
        start,
        `variable ${name}`,
        `a term (write '${name}' for an atom or "${name}" for a string)`
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

  /** One or more adjacent string literals, concatenated. */
  private _readStrings(): string {
    let value = this._readQuoted('"', 'string');
    for (;;) {
      const saved = this._save();
      this._skipSpace();
      if (this._peek() !== '"') {
        this._restore(saved);
        return value;
      }
      value += this._readQuoted('"', 'string');
    }
  }

  private _readBinary(): string {
    this._advance();
    this._advance();
    this._skipSpace();
    let value = '';
    if (this._peek() === '>' && this._peek(1) === '>') {
      this._advance();
      this._advance();
      return value;
    }
    for (;;) {
      if (this._peek() !== '"')
        this._fail(this._describeHere(), 'a string in the binary');
      value += this._readStrings();
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
    return value;
  }

  private _readQuoted(quote: string, what: string): string {
    const opening = this._position();
    this._advance();
    let value = '';
    for (;;) {
      const c = this._peek();
      if (c === '') {
        this._fail(
          'end of file',
          `${quote} to close the ${what} opened at line ${opening.line}, column ${opening.column}`
        );
      }
      if (c === quote) {
        this._advance();
        return value;
      }
      value += c === '\\' ? this._readEscape() : this._advance();
    }
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
      let digits = '';
      if (this._peek() === '{') {
        this._advance();
        while (HEX_DIGIT.test(this._peek())) digits += this._advance();
        if (digits === '' || this._peek() !== '}')
          this._fail(
            this._describeHere(),
            'hexadecimal digits and } in \\x{...}'
          );
        this._advance();
      } else {
        while (digits.length < 2 && HEX_DIGIT.test(this._peek()))
          digits += this._advance();
        if (digits.length < 2)
          this._fail(this._describeHere(), 'two hexadecimal digits after \\x');
      }
      const code = parseInt(digits, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        this._failAt(start, `\\x{${digits}}`, 'a Unicode code point');
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
    const digits = this._readDigits(DIGIT, 'a digit');
    if (this._peek() === '#') {
      const base = Number(digits);
      if (base < 2 || base > 36)
        this._failAt(start, `base ${digits}`, 'a base from 2 to 36 before #');
      this._advance();
      const based = this._readDigits(
        BASE_DIGITS[base]!,
        `a base ${base} digit`
      );
      let value = 0n;
      for (const d of based)
        value = value * BigInt(base) + BigInt(parseInt(d, 36));
      return { kind: 'integer', value, ...start };
    }
    if (this._peek() === '.' && DIGIT.test(this._peek(1))) {
      this._advance();
      let text = `${digits}.${this._readDigits(DIGIT, 'a digit')}`;
      const e = this._peek();
      if (e === 'e' || e === 'E') {
        this._advance();
        text += 'e';
        const sign = this._peek();
        if (sign === '+' || sign === '-') text += this._advance();
        text += this._readDigits(DIGIT, 'a digit in the exponent');
      }
      const value = Number(text);
      if (!Number.isFinite(value))
        this._failAt(
          start,
          `the float ${text}`,
          'a float within the range of a double'
        );
      return { kind: 'float', value, ...start };
    }
    return { kind: 'integer', value: BigInt(digits), ...start };
  }

  /** Digits with single `_` between them, returned without the underscores. */
  private _readDigits(digit: RegExp, expected: string): string {
    if (!digit.test(this._peek())) this._fail(this._describeHere(), expected);
    let digits = this._advance();
    for (;;) {
      const c = this._peek();
      if (digit.test(c)) {
        digits += this._advance();
      } else if (c === '_' && digit.test(this._peek(1))) {
        this._advance();
      } else {
        return digits;
      }
    }
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
    let name = '';
    while (NAME_CHAR.test(this._peek())) name += this._advance();
    return name;
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
      return name;
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

/** A character as it may be shown in a message: itself when printable, else `U+XXXX`. */
function describeCharacter(c: string): string {
  const code = c.codePointAt(0)!;
  if (
    code < 0x21 ||
    (code >= 0x7f && code <= 0xa0) ||
    (code >= 0xd800 && code <= 0xdfff) ||
    code === 0xfeff
  ) {
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return c;
}
