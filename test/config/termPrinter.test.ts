import type { TermNode } from '../../src/config/termNodes';
import { printAtom, printTerm, renderTerm } from '../../src/config/termPrinter';
import { fastestMs } from '../support/timing';

const at = { line: 1, column: 1 };
const atom = (value: string): TermNode => ({ kind: 'atom', value, ...at });
const string = (value: string): TermNode => ({ kind: 'string', value, ...at });
const integer = (value: bigint): TermNode => ({
  kind: 'integer',
  value,
  ...at,
});
const float = (value: number): TermNode => ({ kind: 'float', value, ...at });

const CASES: Array<[TermNode, string]> = [
  [atom('abc_def@x'), 'abc_def@x'],
  [atom('Any atom'), "'Any atom'"],
  [atom("it's"), "'it\\'s'"],
  [atom('a"b'), "'a\"b'"],
  [atom('end'), "'end'"],
  [atom(''), "''"],
  [string('plain'), '"plain"'],
  [string('q"b\\n\nt\tr\r'), '"q\\"b\\\\n\\nt\\tr\\r"'],
  [string('\x00\x1b\x7f'), '"\\x{0}\\x{1B}\\x{7F}"'],
  [string("it's 日本 😀"), '"it\'s 日本 😀"'],
  [{ kind: 'binary', value: '', ...at }, '<<>>'],
  [{ kind: 'binary', value: 'a"b', ...at }, '<<"a\\"b">>'],
  [integer(-5n), '-5'],
  [integer(123456789012345678901234567890n), '123456789012345678901234567890'],
  [float(1.5), '1.5'],
  [float(1), '1.0'],
  [float(-0), '-0.0'],
  [float(1e21), '1.0e+21'],
  [float(1.5e-7), '1.5e-7'],
  [float(5e-324), '5.0e-324'],
  [
    {
      kind: 'tuple',
      elements: [
        atom('a'),
        { kind: 'list', elements: [integer(1n), string('x')], ...at },
      ],
      ...at,
    },
    '{a,[1,"x"]}',
  ],
  [{ kind: 'list', elements: [], ...at }, '[]'],
  [{ kind: 'tuple', elements: [], ...at }, '{}'],
];

describe('printTerm', () => {
  it.each(CASES.map(([node, text]) => [text, node] as const))(
    'should print %s',
    (text, node) => {
      expect(printTerm(node)).toBe(text);
    }
  );
});

describe('printAtom', () => {
  it('should quote only what Erlang would not read unquoted', () => {
    expect(
      ['ok', 'OK', '_x', 'a-b', 'a.b', 'or', 'orelse2'].map(printAtom)
    ).toEqual(['ok', "'OK'", "'_x'", "'a-b'", "'a.b'", "'or'", 'orelse2']);
  });
});

describe('renderTerm', () => {
  it('should print a short term whole', () => {
    const node = CASES[CASES.length - 3]![0];
    expect(renderTerm(node)).toBe('{a,[1,"x"]}');
  });

  it('should print no more of a 50 MB string or a million-element list than a message shows', () => {
    const list: TermNode = {
      kind: 'list',
      elements: Array.from({ length: 1_000_000 }, (_, i) => integer(BigInt(i))),
      ...at,
    };
    const motd = '\n'.repeat(50_000_000);
    // A string the parser gives is flat; one from repeat() is flattened on first use.
    motd.charCodeAt(0);
    const tuple: TermNode = {
      kind: 'tuple',
      elements: [atom('motd'), string(motd)],
      ...at,
    };
    // Printed whole, the list takes over 0.1 s and the string seconds; cut short, microseconds.
    const ms = fastestMs(50, () => {
      expect(renderTerm(list)).toBe(
        `[${Array.from({ length: 23 }, (_, i) => i).join(',')}…`
      );
      expect(renderTerm(tuple)).toBe(`{motd,"${'\\n'.repeat(26)}…`);
    });
    expect(ms).toBeLessThan(50);
  });
});
