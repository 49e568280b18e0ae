/**
 * The characters and words of the Erlang term syntax the term parser reads: reserved words,
 * escapes, character classes and digits, and how a character is shown in a message.
 */

/**
 * Words that Erlang reserves: written unquoted they are not atoms.
 * https://www.erlang.org/doc/system/reserved_words.html
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  (
    'after and andalso band begin bnot bor bsl bsr bxor case catch cond div else end ' +
    'fun if let maybe not of or orelse receive rem try when xor'
  ).split(' ')
);

/** `\\c` escapes that stand for one fixed character. */
export const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
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

export const ATOM_START = /[a-z]/;
export const VARIABLE_START = /[A-Z_]/;
export const DIGIT = /[0-9]/;
export const OCTAL_DIGIT = /[0-7]/;
export const WHITESPACE = /[ \t\n\r\f\v]/;
export const CONTROL_LETTER = /[A-Za-z]/;
/** The rest of an unquoted atom or a variable name, from `lastIndex` on. */
export const NAME_CHARS = /[A-Za-z0-9_@]*/y;
/** Hexadecimal digits from `lastIndex` on. */
export const HEX_DIGITS = /[0-9A-Fa-f]*/y;

/** How many UTF-16 units from `index` on `pattern` (sticky, never failing) matches. */
export function runLength(
  pattern: RegExp,
  text: string,
  index: number
): number {
  pattern.lastIndex = index;
  pattern.exec(text);
  return pattern.lastIndex - index;
}

/**
 * The most digits a number may have (integer, based integer, or each part of a float). No
 * setting needs more than a few, and the limit keeps reading any number cheap: a based integer
 * costs a multiplication per digit group, so unbounded it would take quadratic time.
 */
export const MAX_NUMBER_DIGITS = 1000;

/** The value of the digit with UTF-16 code `code` (`0`–`9`, `a`–`z` either case), or 36 when it is none. */
export function digitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const letter = code | 0x20;
  return letter >= 0x61 && letter <= 0x7a ? letter - 0x61 + 10 : 36;
}

/** `digits` (valid in `base`, at most {@link MAX_NUMBER_DIGITS}) as an integer, ten at a time. */
export function parseBasedDigits(digits: string, base: number): bigint {
  const big = BigInt(base);
  let value = 0n;
  for (let i = 0; i < digits.length; i += 10) {
    const group = digits.slice(i, i + 10);
    value = value * big ** BigInt(group.length) + BigInt(parseInt(group, base));
  }
  return value;
}

/** A character as it may be shown in a message: itself when printable, else `U+XXXX`. */
export function describeCharacter(c: string): string {
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
