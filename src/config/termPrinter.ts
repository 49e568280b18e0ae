/**
 * Prints a term in Erlang syntax, so that error messages show a term the way it was
 * written and so that `parseTerms(printTerm(t))` gives `t` back.
 */
import { MAX_RENDERED_LENGTH, shorten } from '../optionValidation';
import { RESERVED_WORDS } from './termLexicon';
import type { TermNode } from './termNodes';

const UNQUOTED_ATOM = /^[a-z][A-Za-z0-9_@]*$/;

/** What a quoted string or atom escapes, by its quote mark: `\\`, the mark and control characters. */
/* eslint-disable no-control-regex */
const TO_ESCAPE = {
  '"': /[\\"\x00-\x1f\x7f]/g,
  "'": /[\\'\x00-\x1f\x7f]/g,
} as const;
/* eslint-enable no-control-regex */
const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
};

/**
 * Prints a term compactly (no spaces), e.g. `{8088,"127.0.0.1"}`.
 * Positions are ignored; strings and quoted atoms are escaped so they read back unchanged.
 * @param budget print about this many characters, then stop (the result is then cut short)
 */
export function printTerm(node: TermNode, budget = Infinity): string {
  switch (node.kind) {
    case 'atom':
      return printAtom(clip(node.value, budget));
    case 'string':
      return quote(clip(node.value, budget), '"');
    case 'binary':
      return node.value === ''
        ? '<<>>'
        : `<<${quote(clip(node.value, budget), '"')}>>`;
    case 'integer':
      return node.value.toString();
    case 'float':
      return printFloat(node.value);
    case 'tuple':
      return `{${printElements(node.elements, budget)}}`;
    case 'list':
      return `[${printElements(node.elements, budget)}]`;
  }
}

/** A term as a message shows it: printed no further than needed, and cut to one screen line. */
export function renderTerm(node: TermNode): string {
  return shorten(printTerm(node, MAX_RENDERED_LENGTH));
}

function clip(text: string, budget: number): string {
  return text.length > budget ? text.slice(0, budget) : text;
}

function printElements(elements: readonly TermNode[], budget: number): string {
  const printed: string[] = [];
  let length = 0;
  for (const element of elements) {
    if (length > budget) break;
    const text = printTerm(element, budget - length);
    printed.push(text);
    length += text.length + 1;
  }
  return printed.join(',');
}

/** An atom, quoted when Erlang would not read it unquoted. */
export function printAtom(name: string): string {
  return UNQUOTED_ATOM.test(name) && !RESERVED_WORDS.has(name)
    ? name
    : quote(name, "'");
}

/** A finite float in Erlang syntax, which always has a digit on both sides of the point. */
function printFloat(value: number): string {
  if (Object.is(value, -0)) return '-0.0';
  const [mantissa, exponent] = String(value).split('e');
  const withPoint = mantissa!.includes('.') ? mantissa! : `${mantissa}.0`;
  return exponent === undefined ? withPoint : `${withPoint}e${exponent}`;
}

/** In one pass over the text (no concatenation per character), so a long string prints in linear time. */
function quote(text: string, mark: '"' | "'"): string {
  const escaped = text.replace(TO_ESCAPE[mark], c =>
    c === mark
      ? `\\${mark}`
      : (ESCAPES[c] ?? `\\x{${c.charCodeAt(0).toString(16).toUpperCase()}}`)
  );
  return `${mark}${escaped}${mark}`;
}
