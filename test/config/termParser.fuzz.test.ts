/**
 * Generated tests of the term parser: random valid terms must read back as printed, and
 * random damage to valid files must give either a result or a ConfigError, quickly.
 * Every case comes from a seed, so a failure names what to replay.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLegacyApiConfig } from '../../src/config/loadLegacyApiConfig';
import type { TermNode } from '../../src/config/termNodes';
import { parseTerms } from '../../src/config/termParser';
import { printTerm } from '../../src/config/termPrinter';
import { ConfigError } from '../../src/errors';
import { SeededRandom as Random } from '../support/random';

/** A term without positions. */
type Plain =
  | { kind: 'atom' | 'string' | 'binary'; value: string }
  | { kind: 'integer'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'tuple' | 'list'; elements: Plain[] };

/** Characters that stress quoting, escaping, comments and columns. */
const TRICKY = [
  'a',
  'z',
  'A',
  'Z',
  '0',
  '9',
  '_',
  '@',
  ' ',
  '"',
  "'",
  '\\',
  '\n',
  '\r',
  '\t',
  '%',
  '.',
  ',',
  '{',
  '}',
  '[',
  ']',
  '<',
  '>',
  '$',
  '#',
  '|',
  '/',
  'é',
  'ß',
  '日',
  '😀',
  '\u0000',
  '\u0001',
  '\u001b',
  '\u007f',
  '\u00a0',
  '\u2028',
  '\ufeff',
];
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const NAME = `${LOWER}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@`;
const SPECIAL_FLOATS = [
  0,
  -0,
  1,
  -1,
  0.1,
  5e-324,
  -5e-324,
  1.7976931348623157e308,
  1e21,
  1e-7,
  123456.789,
  2 ** 53,
];

function randomCodePoint(r: Random): string {
  if (r.chance(0.6)) return r.pick(TRICKY);
  if (r.chance(0.5)) return String.fromCodePoint(0x20 + r.int(0x5f));
  for (;;) {
    const code = r.chance(0.8) ? r.int(0x10000) : 0x10000 + r.int(0x100000);
    if (code < 0xd800 || code > 0xdfff) return String.fromCodePoint(code);
  }
}

function randomText(r: Random, maxLength: number): string {
  let text = '';
  for (let n = r.int(maxLength + 1); n > 0; n--) text += randomCodePoint(r);
  return text;
}

function randomName(r: Random): string {
  let name = r.pick([...LOWER]);
  for (let n = r.int(10); n > 0; n--) name += r.pick([...NAME]);
  return name;
}

function randomInteger(r: Random): bigint {
  if (r.chance(0.5)) return BigInt(r.int(2000) - 1000);
  let digits = String(1 + r.int(9));
  for (let n = r.int(40); n > 0; n--) digits += String(r.int(10));
  return r.chance(0.5) ? -BigInt(digits) : BigInt(digits);
}

function randomFloat(r: Random): number {
  if (r.chance(0.2)) return r.pick(SPECIAL_FLOATS);
  if (r.chance(0.4)) return (r.next() - 0.5) * 10 ** (r.int(40) - 20);
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, r.int(2 ** 32));
    view.setUint32(4, r.int(2 ** 32));
    const value = view.getFloat64(0);
    if (Number.isFinite(value)) return value;
  }
}

function randomTerm(r: Random, depth: number): Plain {
  const kinds =
    depth >= 5
      ? ['atom', 'string', 'binary', 'integer', 'float']
      : ['atom', 'string', 'binary', 'integer', 'float', 'tuple', 'list'];
  const kind = r.pick(kinds);
  switch (kind) {
    case 'atom':
      return { kind, value: r.chance(0.5) ? randomName(r) : randomText(r, 8) };
    case 'string':
    case 'binary':
      return { kind, value: randomText(r, 12) };
    case 'integer':
      return { kind, value: randomInteger(r) };
    case 'float':
      return { kind, value: randomFloat(r) };
    default: {
      const elements: Plain[] = [];
      for (let n = r.int(5); n > 0; n--)
        elements.push(randomTerm(r, depth + 1));
      return { kind: kind as 'tuple' | 'list', elements };
    }
  }
}

function strip(node: TermNode): Plain {
  return node.kind === 'tuple' || node.kind === 'list'
    ? { kind: node.kind, elements: node.elements.map(strip) }
    : ({ kind: node.kind, value: node.value } as Plain);
}

function withPosition(plain: Plain): TermNode {
  const at = { line: 1, column: 1 };
  return plain.kind === 'tuple' || plain.kind === 'list'
    ? { kind: plain.kind, elements: plain.elements.map(withPosition), ...at }
    : ({ ...plain, ...at } as TermNode);
}

/**
 * Prints a term the way a person might write it: blank space and comments between tokens,
 * optional quotes, other escapes, split strings, other integer notations.
 */
function printNoisily(plain: Plain, r: Random): string {
  const gap = (): string =>
    r.pick([
      '',
      '',
      ' ',
      '  ',
      '\n',
      '\t',
      '\r\n',
      ' % a comment with } and " in it\n',
      '\n\n    ',
    ]);
  switch (plain.kind) {
    case 'atom': {
      const printed = printTerm(withPosition(plain));
      return printed.startsWith("'") || !r.chance(0.3)
        ? printed
        : `'${printed}'`;
    }
    case 'string':
      return splitString(plain.value, r)
        .map(part => quoteNoisily(part, r))
        .join(gap());
    case 'binary': {
      if (plain.value === '') return `<<${gap()}>>`;
      const segments = splitString(plain.value, r).map(
        part => quoteNoisily(part, r) + (r.chance(0.3) ? '/utf8' : '')
      );
      return `<<${gap()}${segments.join(`${gap()},${gap()}`)}${gap()}>>`;
    }
    case 'integer': {
      const negative = plain.value < 0n;
      const magnitude = negative ? -plain.value : plain.value;
      let digits: string;
      if (
        !negative &&
        magnitude >= 33n &&
        magnitude <= 126n &&
        magnitude !== 92n &&
        r.chance(0.3)
      ) {
        digits = `$${String.fromCharCode(Number(magnitude))}`;
      } else if (r.chance(0.3)) {
        const base = 2 + r.int(35);
        const based = magnitude.toString(base);
        digits = `${base}#${r.chance(0.5) ? based.toUpperCase() : based}`;
      } else {
        digits = withUnderscores(magnitude.toString(), r);
      }
      return negative ? `-${gap()}${digits}` : digits;
    }
    case 'float': {
      const negative = plain.value < 0 || Object.is(plain.value, -0);
      const printed = printTerm(
        withPosition({ kind: 'float', value: Math.abs(plain.value) })
      );
      const spelled = r.chance(0.3) ? printed.replace('e', 'E') : printed;
      return negative ? `-${gap()}${spelled}` : spelled;
    }
    default: {
      const [open, close] = plain.kind === 'tuple' ? ['{', '}'] : ['[', ']'];
      const inner = plain.elements
        .map(e => printNoisily(e, r))
        .join(`${gap()},${gap()}`);
      return `${open}${gap()}${inner}${gap()}${close}`;
    }
  }
}

function splitString(value: string, r: Random): string[] {
  const characters = [...value];
  const parts: string[] = [];
  while (characters.length > 0 && r.chance(0.3))
    parts.push(characters.splice(0, 1 + r.int(characters.length)).join(''));
  parts.push(characters.join(''));
  return parts;
}

function quoteNoisily(value: string, r: Random): string {
  let out = '"';
  for (const c of value) {
    const code = c.codePointAt(0)!;
    if (r.chance(0.15))
      out += `\\x{${r.chance(0.5) ? code.toString(16).toUpperCase() : code.toString(16)}}`;
    else if (code < 256 && r.chance(0.1))
      out += `\\${code.toString(8).padStart(3, '0')}`;
    else if (c === '"' || c === '\\') out += `\\${c}`;
    else if (c === ' ' && r.chance(0.3)) out += '\\s';
    else out += c;
  }
  return `${out}"`;
}

function withUnderscores(digits: string, r: Random): string {
  let out = digits[0]!;
  for (const d of digits.slice(1)) out += (r.chance(0.1) ? '_' : '') + d;
  return out;
}

/** The character at a node's line and column, counting columns in code points. */
function characterAt(text: string, node: TermNode): string | undefined {
  return [...(text.split('\n')[node.line - 1] ?? '')][node.column - 1];
}

/** Checks that every node's position points at the first character of its text. */
function checkPositions(
  text: string,
  node: TermNode,
  problems: string[]
): void {
  const c = characterAt(text, node);
  const expected: Record<TermNode['kind'], (c: string) => boolean> = {
    tuple: x => x === '{',
    list: x => x === '[',
    string: x => x === '"',
    binary: x => x === '<',
    atom: x => x === "'" || x === (node.kind === 'atom' ? node.value[0] : ''),
    integer: x => /[-0-9$]/.test(x),
    float: x => /[-0-9]/.test(x),
  };
  if (c === undefined || !expected[node.kind](c))
    problems.push(
      `${node.kind} at line ${node.line}, column ${node.column} starts with ${JSON.stringify(c)}`
    );
  if (node.kind === 'tuple' || node.kind === 'list')
    node.elements.forEach(e => checkPositions(text, e, problems));
}

function terms(r: Random): Plain[] {
  return Array.from({ length: 1 + r.int(3) }, () => randomTerm(r, 0));
}

const EXAMPLES = [
  'examples/server.cfg',
  join(__dirname, 'fixtures', 'full.cfg'),
  join(__dirname, 'fixtures', 'multi.cfg'),
].map(file => readFileSync(file));
const TOML_EXAMPLES = [
  'examples/server.toml',
  join(__dirname, 'fixtures', 'full.toml'),
  join(__dirname, 'fixtures', 'multi.toml'),
].map(file => readFileSync(file));
const INTERESTING_BYTES = Buffer.from(
  '{}[](),."\'%$#<>/\\-_=| \n\r\t09azAZ\u00e9'
);

/** One to three random edits: bit flips, replaced, deleted, inserted or repeated bytes, truncation. */
function mutate(input: Buffer, r: Random): Buffer {
  let bytes = Buffer.from(input);
  for (let n = 1 + r.int(3); n > 0; n--) {
    const at = r.int(bytes.length + 1);
    switch (r.int(6)) {
      case 0:
        if (at < bytes.length) bytes[at] = bytes[at]! ^ (1 << r.int(8));
        break;
      case 1:
        if (at < bytes.length)
          bytes[at] = r.chance(0.5)
            ? r.int(256)
            : INTERESTING_BYTES[r.int(INTERESTING_BYTES.length)]!;
        break;
      case 2:
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          bytes.subarray(at + 1 + r.int(8)),
        ]);
        break;
      case 3: {
        const inserted = Buffer.from(
          Array.from(
            { length: 1 + r.int(4) },
            () => INTERESTING_BYTES[r.int(INTERESTING_BYTES.length)]!
          )
        );
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          inserted,
          bytes.subarray(at),
        ]);
        break;
      }
      case 4: {
        const from = r.int(bytes.length + 1);
        const slice = bytes.subarray(from, from + 1 + r.int(32));
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          slice,
          bytes.subarray(at),
        ]);
        break;
      }
      default:
        bytes = bytes.subarray(0, at);
    }
  }
  return bytes;
}

interface FuzzOutcome {
  /** What went wrong: anything thrown but a ConfigError, or a slow case. */
  problems: string[];
  /** How many damaged inputs still read, and how many gave a ConfigError. */
  accepted: number;
  rejected: number;
}

/** Runs `read` on damaged copies of `inputs`. */
function fuzzReader(
  inputs: Buffer[],
  cases: number,
  firstSeed: number,
  read: (text: string) => unknown
): FuzzOutcome {
  const outcome: FuzzOutcome = { problems: [], accepted: 0, rejected: 0 };
  const { problems } = outcome;
  const decoder = new TextDecoder();
  for (let seed = firstSeed; seed < firstSeed + cases; seed++) {
    const r = new Random(seed);
    const text = decoder.decode(mutate(r.pick(inputs), r));
    const started = performance.now();
    try {
      read(text);
      outcome.accepted++;
    } catch (error) {
      if (error instanceof ConfigError) outcome.rejected++;
      else problems.push(`seed ${seed}: threw ${String(error)}`);
    }
    let elapsed = performance.now() - started;
    // A pause of the machine or the collector is not the parser's: a slow input is slow each time.
    for (let again = 0; again < 3 && elapsed > 250; again++) {
      const restarted = performance.now();
      try {
        read(text);
      } catch {
        // Judged above.
      }
      elapsed = Math.min(elapsed, performance.now() - restarted);
    }
    if (elapsed > 250)
      problems.push(`seed ${seed}: took ${Math.round(elapsed)} ms`);
  }
  return outcome;
}

/** No problem, and damage that is sometimes harmless and sometimes fatal: the inputs reach both paths. */
function expectSound(outcome: FuzzOutcome): void {
  expect(outcome.problems).toEqual([]);
  expect(outcome.accepted).toBeGreaterThan(0);
  expect(outcome.rejected).toBeGreaterThan(0);
}

describe('parseTerms (generated input)', () => {
  it('should read back 3000 random terms printed compactly', () => {
    for (let seed = 0; seed < 3000; seed++) {
      const generated = terms(new Random(seed));
      const text = `${generated.map(t => printTerm(withPosition(t))).join('.\n')}.\n`;
      const read = parseTerms(text, `seed-${seed}.cfg`).map(strip);
      if (!isEqual(read, generated))
        expect({ seed, text, read }).toEqual({ seed, text, read: generated });
    }
  });

  it('should read back 3000 random terms printed with blank space, comments and other notations, at the right positions', () => {
    for (let seed = 0; seed < 3000; seed++) {
      const r = new Random(1_000_000 + seed);
      const generated = terms(r);
      const text = generated
        .map(
          t =>
            `${r.pick(['', '\n', '% top comment\n'])}${printNoisily(t, r)}${r.pick(['', ' ', '\n'])}.${r.pick([' ', '\n', '\t', '%c\n'])}`
        )
        .join('');
      const parsed = parseTerms(text, `seed-${seed}.cfg`);
      const problems: string[] = [];
      parsed.forEach(node => checkPositions(text, node, problems));
      const read = parsed.map(strip);
      if (!isEqual(read, generated) || problems.length > 0) {
        expect({ seed, text, read, problems }).toEqual({
          seed,
          text,
          read: generated,
          problems: [],
        });
      }
    }
  });

  it('should only ever return terms or throw ConfigError on 3000 damaged term files', () => {
    expectSound(
      fuzzReader(EXAMPLES, 3000, 0, text =>
        parseLegacyApiConfig(text, 'fuzz.cfg', 'term')
      )
    );
  });

  it('should only ever return terms or throw ConfigError on 2000 damaged random term texts', () => {
    const inputs = Array.from({ length: 20 }, (_, seed) => {
      const r = new Random(2_000_000 + seed);
      return Buffer.from(
        `${terms(r)
          .map(t => printNoisily(t, r))
          .join('.\n')}.\n`
      );
    });
    expectSound(
      fuzzReader(inputs, 2000, 3_000_000, text => parseTerms(text, 'fuzz.cfg'))
    );
  });

  it('should only ever return listeners or throw ConfigError on 2000 damaged TOML files', () => {
    expectSound(
      fuzzReader(TOML_EXAMPLES, 2000, 4_000_000, text =>
        parseLegacyApiConfig(text, 'fuzz.toml', 'toml')
      )
    );
  });
});

/** Deep equality that tells 0 from -0 and compares bigints, without an expect per case. */
function isEqual(a: unknown, b: unknown): boolean {
  if (
    typeof a !== 'object' ||
    a === null ||
    typeof b !== 'object' ||
    b === null
  )
    return Object.is(a, b);
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(key =>
    isEqual(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key]
    )
  );
}
