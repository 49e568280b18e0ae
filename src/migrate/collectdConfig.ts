/**
 * A reader of collectd's configuration files that follows collectd's own grammar
 * (src/liboconfig/scanner.l and parser.y): what collectd accepts is read, what it rejects is a
 * ConfigError naming the file and line.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../errors';
import { readCollectdFile } from './collectdFile';
import { matchesWildcard } from './wildcardMatch';

/** A value of an option or block: a string (quoted or not), a number or a boolean. */
export type CollectdValue = string | number | boolean;

/** One option (`Key value…`) or block (`<Key value…>` … `</Key>`) of a collectd configuration. */
export interface CollectdItem {
  readonly key: string;
  readonly values: readonly CollectdValue[];
  readonly children: readonly CollectdItem[];
  readonly file: string;
  readonly line: number;
}

type TokenType =
  | 'EOL'
  | 'SLASH'
  | 'OPENBRAC'
  | 'CLOSEBRAC'
  | 'BOOLEAN'
  | 'NUMBER'
  | 'QUOTED_STRING'
  | 'UNQUOTED_STRING'
  | 'EOF';

interface Token {
  readonly type: TokenType;
  readonly text: string;
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

function countLines(text: string): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1))
    lines++;
  return lines;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  let line = 1;
  while (position < text.length) {
    let best: { rule: Rule; text: string } | undefined;
    for (const rule of RULES) {
      rule.pattern.lastIndex = position;
      const match = rule.pattern.exec(text);
      if (match !== null && match[0].length > (best?.text.length ?? 0))
        best = { rule, text: match[0] };
    }
    if (best === undefined) {
      // flex's default rule copies an unmatched character to stdout and goes on.
      if (text[position] === '\n') line++;
      position++;
      continue;
    }
    const start = line;
    position += best.text.length;
    line += countLines(best.text);
    switch (best.rule.type) {
      case 'SKIP':
        break;
      case 'ML_START': {
        let buffer = best.text.replace(/\\\r?\n$/, '');
        for (;;) {
          ML_LEADING_SPACE.lastIndex = position;
          const space = ML_LEADING_SPACE.exec(text);
          if (space !== null) position += space[0].length;
          ML_PART.lastIndex = position;
          const part = ML_PART.exec(text);
          if (part === null) {
            // collectd would wait for a closing part forever: the file ends inside a string.
            tokens.push({ type: 'EOF', text: '', line });
            return tokens;
          }
          position += part[0].length;
          line += countLines(part[0]);
          if (part[0].endsWith('"')) {
            buffer += part[0];
            break;
          }
          buffer += part[0].replace(/\\\r?\n$/, '');
        }
        tokens.push({
          type: 'QUOTED_STRING',
          text: buffer,
          value: unquote(buffer),
          line: start,
        });
        break;
      }
      case 'BOOLEAN':
        tokens.push({
          type: 'BOOLEAN',
          text: best.text,
          value: /^(true|yes|on)$/.test(best.text),
          line: start,
        });
        break;
      case 'NUMBER':
        tokens.push({
          type: 'NUMBER',
          text: best.text,
          // strtod: hexadecimal is read as such, a leading 0 is not octal.
          value: Number(best.text),
          line: start,
        });
        break;
      case 'QUOTED_STRING':
        tokens.push({
          type: 'QUOTED_STRING',
          text: best.text,
          value: unquote(best.text),
          line: start,
        });
        break;
      case 'UNQUOTED_STRING':
        tokens.push({
          type: 'UNQUOTED_STRING',
          text: best.text,
          value: best.text,
          line: start,
        });
        break;
      default:
        tokens.push({ type: best.rule.type, text: best.text, line: start });
    }
  }
  tokens.push({ type: 'EOF', text: '', line });
  return tokens;
}

function describe(token: Token): string {
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

/** The deepest nesting of blocks read: real configurations nest three or four. */
export const MAX_BLOCK_DEPTH = 100;

/** collectd's CF_MAX_DEPTH: how many files deep `Include`s may go. */
export const MAX_INCLUDE_DEPTH = 8;

/** parser.y as a recursive descent: statements, options and matching blocks. */
class Parser {
  private _index = 0;

  constructor(
    private readonly _tokens: Token[],
    private readonly _file: string
  ) {}

  parse(): CollectdItem[] {
    return this._statements(undefined, 0);
  }

  private _peek(offset = 0): Token {
    return this._tokens[
      Math.min(this._index + offset, this._tokens.length - 1)
    ]!;
  }

  private _next(): Token {
    const token = this._peek();
    this._index++;
    return token;
  }

  private _fail(token: Token, expected: string): never {
    throw new ConfigError(
      this._file,
      `line ${token.line}`,
      `found ${describe(token)}, expected ${expected}`
    );
  }

  private _expect(type: TokenType, expected: string): Token {
    const token = this._next();
    if (token.type !== type) this._fail(token, expected);
    return token;
  }

  private _arguments(): CollectdValue[] {
    const values: CollectdValue[] = [];
    for (;;) {
      const token = this._peek();
      if (
        token.type === 'NUMBER' ||
        token.type === 'BOOLEAN' ||
        token.type === 'QUOTED_STRING' ||
        token.type === 'UNQUOTED_STRING'
      ) {
        values.push(token.value!);
        this._index++;
      } else return values;
    }
  }

  private _statements(open: Token | undefined, depth: number): CollectdItem[] {
    const items: CollectdItem[] = [];
    for (;;) {
      const token = this._next();
      switch (token.type) {
        case 'EOL':
          continue;
        case 'EOF':
          if (open !== undefined)
            this._fail(
              token,
              `</${String(open.value)}> to close the block opened at line ${open.line}`
            );
          return items;
        case 'UNQUOTED_STRING': {
          const values = this._arguments();
          if (values.length === 0) this._fail(this._peek(), 'a value');
          this._expect('EOL', 'the end of the line');
          items.push({
            key: token.text,
            values,
            children: [],
            file: this._file,
            line: token.line,
          });
          continue;
        }
        case 'OPENBRAC': {
          if (this._peek().type === 'SLASH') {
            this._index++;
            const name = this._expect('UNQUOTED_STRING', 'a block name');
            if (open === undefined)
              this._fail(name, 'no closing tag: no block is open');
            if (name.text !== open.text)
              this._fail(
                name,
                `</${open.text}> to close the block opened at line ${open.line}`
              );
            this._expect('CLOSEBRAC', '">"');
            this._expect('EOL', 'the end of the line');
            return items;
          }
          const name = this._expect('UNQUOTED_STRING', 'a block name');
          // The parser recurses once per block: a cap keeps a hostile file off the stack's end.
          if (depth === MAX_BLOCK_DEPTH)
            this._fail(
              name,
              `at most ${MAX_BLOCK_DEPTH} blocks nested in one another`
            );
          const values = this._arguments();
          this._expect('CLOSEBRAC', '">"');
          this._expect('EOL', 'the end of the line');
          const children = this._statements(name, depth + 1);
          items.push({
            key: name.text,
            values,
            children,
            file: this._file,
            line: name.line,
          });
          continue;
        }
        default:
          this._fail(
            token,
            open === undefined
              ? 'an option or a block'
              : `an option, a block or </${open.text}>`
          );
      }
    }
  }
}

/** Parses the text of one collectd configuration file; `Include`s are left as they are. */
export function parseCollectdConfig(
  text: string,
  file: string
): CollectdItem[] {
  if (text.includes('\u0000'))
    throw new ConfigError(
      file,
      `line ${countLines(text.slice(0, text.indexOf('\u0000'))) + 1}`,
      'found a NUL byte, expected a text file'
    );
  return new Parser(tokenize(text), file).parse();
}

/** What {@link readCollectdConfig} read. */
export interface ReadCollectdConfigResult {
  /** The items, with every `Include` replaced by what it includes. */
  readonly items: CollectdItem[];
  /** Included files that were not found, as `file:line path`. */
  readonly missingIncludes: string[];
}

/**
 * Reads a collectd configuration file and the files it includes (`Include "path"`, a file or a
 * directory, with `<Include>` blocks' `Filter`), as collectd's configfile.c does.
 */
export function readCollectdConfig(file: string): ReadCollectdConfigResult {
  const missingIncludes: string[] = [];
  const seen = new Set<string>();
  const expand = (
    items: readonly CollectdItem[],
    depth: number
  ): CollectdItem[] =>
    items.flatMap(item => {
      if (
        item.key.toLowerCase() !== 'include' ||
        typeof item.values[0] !== 'string'
      )
        return [{ ...item, children: expand(item.children, depth) }];
      const target = item.values[0];
      // collectd resolves a relative path against its working directory; a file moved elsewhere
      // for migration is more often next to what it includes.
      const path = isAbsolute(target)
        ? target
        : ([resolve(target), join(dirname(item.file), target)].find(p =>
            existsSync(p)
          ) ?? target);
      const filter = item.children.find(c => c.key.toLowerCase() === 'filter')
        ?.values[0];
      let files: string[];
      try {
        // collectd expands a wildcard in the last part of the path, as a shell would.
        const pattern = /[*?]/.test(basename(path))
          ? basename(path)
          : undefined;
        const directory = pattern === undefined ? path : dirname(path);
        const nameFilter =
          pattern ?? (typeof filter === 'string' ? filter : undefined);
        files =
          pattern !== undefined || statSync(path).isDirectory()
            ? readdirSync(directory)
                .filter(
                  name =>
                    nameFilter === undefined ||
                    matchesWildcard(nameFilter, name)
                )
                .sort()
                .map(name => join(directory, name))
                .filter(entry => !statSync(entry).isDirectory())
            : [path];
      } catch {
        missingIncludes.push(`${item.file}:${item.line} ${target}`);
        return [];
      }
      return files.flatMap(included => {
        // A file read once is not read again, so an Include loop ends.
        if (seen.has(included)) return [];
        if (depth === MAX_INCLUDE_DEPTH)
          throw new ConfigError(
            item.file,
            `line ${item.line}`,
            `found Include ${JSON.stringify(target)} ${MAX_INCLUDE_DEPTH + 1} files deep, expected at most ${MAX_INCLUDE_DEPTH} (collectd's limit)`
          );
        seen.add(included);
        const parsed = parseCollectdConfig(
          readCollectdFile(included, item.file, item.line),
          included
        );
        return expand(parsed, depth + 1);
      });
    });
  const items = parseCollectdConfig(
    readCollectdFile(file, file, undefined),
    file
  );
  seen.add(file);
  return { items: expand(items, 0), missingIncludes };
}
