/**
 * Prints a term in Erlang syntax, so that error messages show a term the way it was
 * written and so that `parseTerms(printTerm(t))` gives `t` back.
 */
import { RESERVED_WORDS, type TermNode } from './termParser';

const UNQUOTED_ATOM = /^[a-z][A-Za-z0-9_@]*$/;

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
};

/**
 * Prints a term compactly (no spaces), e.g. `{8088,"127.0.0.1"}`.
 * Positions are ignored; strings and quoted atoms are escaped so they read back unchanged.
 */
export function printTerm(node: TermNode): string {
  switch (node.kind) {
    case 'atom':
      return printAtom(node.value);
    case 'string':
      return quote(node.value, '"');
    case 'binary':
      return node.value === '' ? '<<>>' : `<<${quote(node.value, '"')}>>`;
    case 'integer':
      return node.value.toString();
    case 'float':
      return printFloat(node.value);
    case 'tuple':
      return `{${node.elements.map(printTerm).join(',')}}`;
    case 'list':
      return `[${node.elements.map(printTerm).join(',')}]`;
  }
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

function quote(text: string, mark: '"' | "'"): string {
  let out = mark;
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if (c === mark) out += `\\${mark}`;
    else if (ESCAPES[c] !== undefined) out += ESCAPES[c];
    else if (code < 0x20 || code === 0x7f)
      out += `\\x{${code.toString(16).toUpperCase()}}`;
    else out += c;
  }
  return out + mark;
}
