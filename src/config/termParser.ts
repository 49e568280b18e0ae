/**
 * A strict parser for the subset of Erlang terms used by the messaging server's older
 * configuration files: a sequence of terms, each ended by a full stop.
 */
// Hand-written because no maintained npm package parses Erlang term files.
import { shorten } from '../optionValidation';
import { TermCursor } from './termCursor';
import {
  ATOM_START,
  DIGIT,
  digitValue,
  MAX_NUMBER_DIGITS,
  parseBasedDigits,
  RESERVED_WORDS,
  VARIABLE_START,
  WHITESPACE,
} from './termLexicon';
import type {
  AtomNode,
  FloatNode,
  IntegerNode,
  TermNode,
  TermPosition,
} from './termNodes';
import { TextChunks } from './textChunks';

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

class TermReader extends TermCursor {
  private _depth = 0;

  readAll(): TermNode[] {
    const terms: TermNode[] = [];
    // A byte order mark is not part of the text and does not count as a column.
    if (this._text.startsWith('\uFEFF')) this._index = 1;
    this._skipSpace();
    while (!this._atEnd()) {
      terms.push(this._readTerm());
      this._skipSpace();
      if (this._peek() !== '.') this._unexpected('. to end the term');
      this._advance();
      const after = this._peek();
      if (after !== '' && after !== '%' && !WHITESPACE.test(after)) {
        this._unexpected('whitespace or end of file after the full stop');
      }
      this._skipSpace();
    }
    return terms;
  }

  private _readTerm(): TermNode {
    const start = this._position();
    const c = this._peek();
    if (c === '{' || c === '[') {
      const kind = c === '{' ? 'tuple' : 'list';
      return { kind, elements: this._readElements(c, CLOSING[c]), ...start };
    }
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
      if (!DIGIT.test(this._peek())) this._unexpected('a number after -');
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
    return this._unexpected('a term');
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
      this._unexpected(`, or ${close}`);
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
    this._take(2);
    this._skipSpace();
    const value = new TextChunks();
    if (this._peek() === '>' && this._peek(1) === '>') {
      this._take(2);
      return '';
    }
    for (;;) {
      if (this._peek() !== '"') this._unexpected('a string in the binary');
      this._readStrings(value);
      this._skipSpace();
      if (this._peek() === '/') {
        this._advance();
        if (this._describeHere() !== 'utf8') this._unexpected('utf8 after /');
        this._readName();
        this._skipSpace();
      }
      if (this._peek() === ',') {
        this._advance();
        this._skipSpace();
        continue;
      }
      if (this._peek() === '>' && this._peek(1) === '>') break;
      this._unexpected(', or >> to close the binary');
    }
    this._take(2);
    return value.toString();
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
    if (!isDigit(this._index)) this._unexpected(expected);
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
}

const UNDERSCORES = /_/g;
const CLOSING = { '{': '}', '[': ']' } as const;
