/**
 * A reader of collectd's configuration files that follows collectd's own parser.y (over the
 * tokens of collectdScanner) and its Include handling: what collectd accepts is read, what it
 * rejects is a ConfigError naming the file and line.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../errors';
import { readCollectdFile } from './collectdFile';
import { matchesWildcard } from './wildcardMatch';
import {
  countLines,
  describeToken,
  tokenize,
  type CollectdValue,
  type Token,
  type TokenType,
} from './collectdScanner';

/** One option (`Key value…`) or block (`<Key value…>` … `</Key>`) of a collectd configuration. */
export interface CollectdItem {
  readonly key: string;
  readonly values: readonly CollectdValue[];
  readonly children: readonly CollectdItem[];
  readonly file: string;
  readonly line: number;
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

  private _peek(): Token {
    return this._tokens[Math.min(this._index, this._tokens.length - 1)]!;
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
      `found ${describeToken(token)}, expected ${expected}`
    );
  }

  private _expect(type: TokenType, expected: string): Token {
    const token = this._next();
    if (token.type !== type) this._fail(token, expected);
    return token;
  }

  private _arguments(): CollectdValue[] {
    const values: CollectdValue[] = [];
    // NUMBER, BOOLEAN and the strings carry a value; line ends and brackets none.
    while (this._peek().value !== undefined) values.push(this._next().value!);
    return values;
  }

  statements(open: Token | undefined, depth: number): CollectdItem[] {
    const items: CollectdItem[] = [];
    for (;;) {
      const token = this._next();
      let name = token;
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
        case 'UNQUOTED_STRING':
          break;
        case 'OPENBRAC':
          if (this._peek().type === 'SLASH') {
            this._index++;
            const closing = this._expect('UNQUOTED_STRING', 'a block name');
            if (open === undefined)
              this._fail(closing, 'no closing tag: no block is open');
            if (closing.text !== open.text)
              this._fail(
                closing,
                `</${open.text}> to close the block opened at line ${open.line}`
              );
            this._expect('CLOSEBRAC', '">"');
            this._expect('EOL', 'the end of the line');
            return items;
          }
          name = this._expect('UNQUOTED_STRING', 'a block name');
          // The parser recurses once per block: a cap keeps a hostile file off the stack's end.
          if (depth === MAX_BLOCK_DEPTH)
            this._fail(
              name,
              `at most ${MAX_BLOCK_DEPTH} blocks nested in one another`
            );
          break;
        default:
          this._fail(
            token,
            open === undefined
              ? 'an option or a block'
              : `an option, a block or </${open.text}>`
          );
      }
      // An option or a block's opening tag: its values, then its children if it is a block.
      const block = token.type === 'OPENBRAC';
      const values = this._arguments();
      if (block) this._expect('CLOSEBRAC', '">"');
      else if (values.length === 0) this._fail(this._peek(), 'a value');
      this._expect('EOL', 'the end of the line');
      items.push({
        key: name.text,
        values,
        children: block ? this.statements(name, depth + 1) : [],
        file: this._file,
        line: name.line,
      });
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
  return new Parser(tokenize(text), file).statements(undefined, 0);
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
