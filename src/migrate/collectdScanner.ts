/**
 * collectd's configuration scanner (src/liboconfig/scanner.l) in TypeScript: the tokens its
 * parser reads, with the longest-match rule of flex.
 */

/** A value of an option or block: a string (quoted or not), a number or a boolean. */
export type CollectdValue = string | number | boolean;

/** The token types of parser.y. */
export type TokenType =
  | 'EOL'
  | 'SLASH'
  | 'OPENBRAC'
  | 'CLOSEBRAC'
  | 'BOOLEAN'
  | 'NUMBER'
  | 'QUOTED_STRING'
  | 'UNQUOTED_STRING'
  | 'EOF';

/** One token, with its line. */
export interface Token {
  readonly type: TokenType;
  readonly text: string;
  /** What a NUMBER, BOOLEAN or string token says; none for line ends and brackets. */
  readonly value?: CollectdValue;
  readonly line: number;
}

// The scanner's definitions, as in scanner.l.
const QUOTED = String.raw`(?:[^\\"]|\\[^\n])*`;
const IP_BYTE = String.raw`(?:2(?:5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9])`;
const PORT = String.raw`(?:6(?:5(?:5(?:3[0-5]|[0-2][0-9])|[0-4][0-9][0-9])|[0-4][0-9][0-9][0-9])|[1-5][0-9][0-9][0-9][0-9]|[1-9][0-9]?[0-9]?[0-9]?)`;
const IPV4 = String.raw`${IP_BYTE}\.${IP_BYTE}\.${IP_BYTE}\.${IP_BYTE}(?::${PORT})?`;
const HEX16 = '[0-9A-Fa-f]{1,4}';
const V6_PART = `(?:${HEX16}:${HEX16}|${IPV4})`;
const IPV6_BASES = [
  `(?:${HEX16}:){6}${V6_PART}`,
  `::(?:${HEX16}:){5}${V6_PART}`,
  `(?:${HEX16})?::(?:${HEX16}:){4}${V6_PART}`,
  `(?:(?:${HEX16}:){0,1}${HEX16})?::(?:${HEX16}:){3}${V6_PART}`,
  `(?:(?:${HEX16}:){0,2}${HEX16})?::(?:${HEX16}:){2}${V6_PART}`,
  `(?:(?:${HEX16}:){0,3}${HEX16})?::${HEX16}:${V6_PART}`,
  `(?:(?:${HEX16}:){0,4}${HEX16})?::${V6_PART}`,
  `(?:(?:${HEX16}:){0,5}${HEX16})?::${HEX16}`,
  `(?:(?:${HEX16}:){0,6}${HEX16})?::`,
];
const IPV6 = IPV6_BASES.flatMap(base => [
  base,
  String.raw`\[(?:${base})\](?::${PORT})?`,
]);
const NUMBER = String.raw`[+-]?[0-9]*\.[0-9]+(?:[eE][+-][0-9]+)?|0[xX][0-9a-fA-F]+|0[0-7]+|[+-]?[0-9]+`;

interface Rule {
  readonly pattern: RegExp;
  readonly type: TokenType | 'SKIP' | 'ML_START';
}

/**
 * The rules in scanner.l's order: flex takes the longest match, the earlier rule on a tie.
 * Each alternative of an alternation is its own pattern, since a JavaScript alternation takes
 * the first alternative that matches rather than the longest.
 */
const RULES: readonly Rule[] = [
  { pattern: /[ \t\b]/y, type: 'SKIP' },
  { pattern: /#[^\n]*/y, type: 'SKIP' },
  { pattern: /\\(?:\r\n|\n)/y, type: 'SKIP' },
  { pattern: /\r\n|\n/y, type: 'EOL' },
  { pattern: /\//y, type: 'SLASH' },
  { pattern: /</y, type: 'OPENBRAC' },
  { pattern: />/y, type: 'CLOSEBRAC' },
  { pattern: /true|yes|on/y, type: 'BOOLEAN' },
  { pattern: /false|no|off/y, type: 'BOOLEAN' },
  { pattern: new RegExp(IPV4, 'y'), type: 'UNQUOTED_STRING' },
  ...IPV6.map((alternative): Rule => ({
    pattern: new RegExp(alternative, 'y'),
    type: 'UNQUOTED_STRING',
  })),
  ...NUMBER.split('|').map((alternative): Rule => ({
    pattern: new RegExp(alternative, 'y'),
    type: 'NUMBER',
  })),
  { pattern: new RegExp(`"${QUOTED}"`, 'y'), type: 'QUOTED_STRING' },
  { pattern: /[0-9A-Za-z_]+/y, type: 'UNQUOTED_STRING' },
  {
    pattern: new RegExp(`"${QUOTED}\\\\(?:\\r\\n|\\n)`, 'y'),
    type: 'ML_START',
  },
];

// Inside a quoted string continued over lines: leading white space dropped, then a part that
// continues again or one that closes the string.
const ML_LEADING_SPACE = /[ \t\b]+/y;
const ML_PART = new RegExp(`[^ \\t\\b]${QUOTED}(?:\\\\(?:\\r\\n|\\n)|")`, 'y');

/** parser.y's `unquote`: drop the quotes, then each backslash, keeping the character after it. */
function unquote(text: string): string {
  return text.slice(1, -1).replace(/\\([\s\S])/g, '$1');
}

/** How many line ends `text` holds. */
export function countLines(text: string): number {
  return text.split('\n').length - 1;
}

/** The value parser.y reads from a token: none for line ends and brackets. */
function valueOf(type: TokenType, text: string): CollectdValue | undefined {
  switch (type) {
    case 'BOOLEAN':
      return /^(true|yes|on)$/.test(text);
    case 'NUMBER':
      // strtod: hexadecimal is read as such, a leading 0 is not octal.
      return Number(text);
    case 'QUOTED_STRING':
      return unquote(text);
    case 'UNQUOTED_STRING':
      return text;
    default:
      return undefined;
  }
}

/** The tokens of a file's text, ending with EOF. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  let line = 1;
  while (position < source.length) {
    let best: { rule: Rule; text: string } | undefined;
    for (const rule of RULES) {
      rule.pattern.lastIndex = position;
      const match = rule.pattern.exec(source);
      if (match !== null && match[0].length > (best?.text.length ?? 0))
        best = { rule, text: match[0] };
    }
    if (best === undefined) {
      // flex's default rule copies an unmatched character to stdout and goes on.
      if (source[position] === '\n') line++;
      position++;
      continue;
    }
    const start = line;
    position += best.text.length;
    line += countLines(best.text);
    const { type } = best.rule;
    if (type === 'SKIP') continue;
    let text = best.text;
    if (type === 'ML_START') {
      text = text.replace(/\\\r?\n$/, '');
      for (;;) {
        ML_LEADING_SPACE.lastIndex = position;
        const space = ML_LEADING_SPACE.exec(source);
        if (space !== null) position += space[0].length;
        ML_PART.lastIndex = position;
        const part = ML_PART.exec(source);
        if (part === null) {
          // collectd would wait for a closing part forever: the file ends inside a string.
          tokens.push({ type: 'EOF', text: '', line });
          return tokens;
        }
        position += part[0].length;
        line += countLines(part[0]);
        if (part[0].endsWith('"')) {
          text += part[0];
          break;
        }
        text += part[0].replace(/\\\r?\n$/, '');
      }
    }
    const tokenType = type === 'ML_START' ? 'QUOTED_STRING' : type;
    tokens.push({
      type: tokenType,
      text,
      value: valueOf(tokenType, text),
      line: start,
    });
  }
  tokens.push({ type: 'EOF', text: '', line });
  return tokens;
}

/** A token as a message names it. */
export function describeToken(token: Token): string {
  switch (token.type) {
    case 'EOL':
      return 'the end of the line';
    case 'EOF':
      return 'the end of the file';
    default:
      return JSON.stringify(
        token.text.length > 40 ? `${token.text.slice(0, 40)}…` : token.text
      );
  }
}
