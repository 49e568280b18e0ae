import { MAX_NUMBER_DIGITS } from '../../src/config/termLexicon';
import type { TermNode } from '../../src/config/termNodes';
import { MAX_TERM_DEPTH, parseTerms } from '../../src/config/termParser';
import { fastestMs } from '../support/timing';
import { expectConfigError } from './expectConfigError';

/** The only term of `text`. */
function parseOne(text: string): TermNode {
  const terms = parseTerms(text, 'test.cfg');
  expect(terms).toHaveLength(1);
  return terms[0]!;
}

describe('parseTerms', () => {
  describe('valid terms', () => {
    it('should give every node its line and column', () => {
      expect(
        parseTerms('{listen, [\n  {8088, "x"}]}.\n  ok.\n', 'test.cfg')
      ).toEqual([
        {
          kind: 'tuple',
          line: 1,
          column: 1,
          elements: [
            { kind: 'atom', value: 'listen', line: 1, column: 2 },
            {
              kind: 'list',
              line: 1,
              column: 10,
              elements: [
                {
                  kind: 'tuple',
                  line: 2,
                  column: 3,
                  elements: [
                    { kind: 'integer', value: 8088n, line: 2, column: 4 },
                    { kind: 'string', value: 'x', line: 2, column: 10 },
                  ],
                },
              ],
            },
          ],
        },
        { kind: 'atom', value: 'ok', line: 3, column: 3 },
      ]);
    });

    it.each([
      ['abc', 'abc'],
      ['abc_def@x', 'abc_def@x'],
      ['a1B2', 'a1B2'],
      ["'Any atom'", 'Any atom'],
      ["'it\\'s'", "it's"],
      ["'end'", 'end'],
      ["''", ''],
    ])('should read the atom %s', (text, value) => {
      expect(parseOne(`${text}.`)).toEqual({
        kind: 'atom',
        value,
        line: 1,
        column: 1,
      });
    });

    it.each([
      ['"plain"', 'plain'],
      ['""', ''],
      [
        '"\\"\\\\\\n\\t\\s\\r\\v\\f\\b\\d\\e\\\'"',
        '"\\\n\t \r\v\f\b\x7f\x1b\'',
      ],
      ['"\\101\\0\\7\\1234"', 'A\x00\x07S4'],
      ['"\\x41\\x{263A}\\x{1F600}"', 'A\u263A\u{1F600}'],
      ['"\\^G\\^z"', '\x07\x1a'],
      ['"ab" "cd"\n  % comment\n  "ef"', 'abcdef'],
      ['"line one\nline two"', 'line one\nline two'],
      ['"% not a comment"', '% not a comment'],
      ['"日本 😀"', '日本 😀'],
    ])('should read the string %s', (text, value) => {
      expect(parseOne(`${text}.`)).toEqual({
        kind: 'string',
        value,
        line: 1,
        column: 1,
      });
    });

    it.each([
      ['<<>>', ''],
      ['<<"abc">>', 'abc'],
      ['<< "a" "b" >>', 'ab'],
      ['<<"é"/utf8>>', 'é'],
      ['<<"a", "b"/utf8, "c">>', 'abc'],
    ])('should read the binary %s', (text, value) => {
      expect(parseOne(`${text}.`)).toEqual({
        kind: 'binary',
        value,
        line: 1,
        column: 1,
      });
    });

    it.each([
      ['0', 0n],
      ['8088', 8088n],
      ['-5', -5n],
      ['- 5', -5n],
      ['1_000_000', 1000000n],
      ['16#FF', 255n],
      ['16#ff', 255n],
      ['2#1010', 10n],
      ['36#Zz', 1295n],
      ['-16#10', -16n],
      ['$a', 97n],
      ['$\\n', 10n],
      ['$ ', 32n],
      ['$😀', 0x1f600n],
      ['123456789012345678901234567890', 123456789012345678901234567890n],
    ])('should read the integer %s', (text, value) => {
      expect(parseOne(`${text}.`)).toEqual({
        kind: 'integer',
        value,
        line: 1,
        column: 1,
      });
    });

    it.each([
      ['1.5', 1.5],
      ['-2.5e-3', -0.0025],
      ['6.02E23', 6.02e23],
      ['1.0e+2', 100],
      ['1_0.2_5', 10.25],
      ['-0.0', -0],
    ])('should read the float %s', (text, value) => {
      expect(parseOne(`${text}.`)).toEqual({
        kind: 'float',
        value,
        line: 1,
        column: 1,
      });
    });

    it('should read empty and nested tuples and lists', () => {
      const strip = (node: TermNode): unknown =>
        node.kind === 'tuple' || node.kind === 'list'
          ? [node.kind, node.elements.map(strip)]
          : node.value;
      expect(strip(parseOne('{[], {}, [{}, [a]], {[]}}.'))).toEqual([
        'tuple',
        [
          ['list', []],
          ['tuple', []],
          [
            'list',
            [
              ['tuple', []],
              ['list', ['a']],
            ],
          ],
          ['tuple', [['list', []]]],
        ],
      ]);
    });

    it('should skip comments, CRLF line ends and a full stop followed by a comment', () => {
      const terms = parseTerms(
        '% head\r\n{a, % inside\r\n b}.% after\r\nc.\r\n% tail',
        'test.cfg'
      );
      expect(terms.map(t => [t.line, t.column])).toEqual([
        [2, 1],
        [4, 1],
      ]);
      expect(terms[0]).toMatchObject({
        elements: [{ value: 'a' }, { value: 'b', line: 3, column: 2 }],
      });
    });

    it('should read an empty file, or one with only comments, as no terms', () => {
      expect(parseTerms('', 'test.cfg')).toEqual([]);
      expect(parseTerms('  \n% only a comment', 'test.cfg')).toEqual([]);
    });

    it(`should accept ${MAX_TERM_DEPTH} levels of nesting`, () => {
      const text = `${'['.repeat(MAX_TERM_DEPTH)}${']'.repeat(MAX_TERM_DEPTH)}.`;
      expect(parseOne(text).kind).toBe('list');
    });
  });

  describe('invalid terms', () => {
    it.each([
      [
        'abc',
        'line 1, column 4: found end of file, expected . to end the term',
      ],
      ['{a b}.', 'line 1, column 4: found b, expected , or }'],
      ['{a,}.', 'line 1, column 4: found }, expected a term'],
      ['[a,b.', 'line 1, column 5: found ., expected , or ]'],
      ['{a, [b}.', 'line 1, column 7: found }, expected , or ]'],
      [
        '{a, [b',
        'line 1, column 7: found end of file, expected , or ] to close the [ opened at line 1, column 5',
      ],
      [
        '{a}.{b}.',
        'line 1, column 5: found {, expected whitespace or end of file after the full stop',
      ],
      ['{a,\r\n b c}.', 'line 2, column 4: found c, expected , or }'],
      ['"😀" x.', 'line 1, column 5: found x, expected . to end the term'],
      [
        '"abc',
        'line 1, column 5: found end of file, expected " to close the string opened at line 1, column 1',
      ],
      [
        "{'abc}.",
        "line 1, column 8: found end of file, expected ' to close the quoted atom opened at line 1, column 2",
      ],
      [
        '"\\z".',
        'line 1, column 2: found \\z, expected an escape sequence such as \\n, \\t, \\s, \\", \\\\ or \\x{41}',
      ],
      [
        '"\\x4".',
        'line 1, column 5: found ", expected two hexadecimal digits after \\x',
      ],
      [
        '"\\x{}".',
        'line 1, column 5: found }, expected hexadecimal digits and } in \\x{...}',
      ],
      [
        '"\\x{110000}".',
        'line 1, column 2: found \\x{110000}, expected a Unicode code point',
      ],
      [
        '"\\x{D800}".',
        'line 1, column 2: found \\x{D800}, expected a Unicode code point',
      ],
      ['"\\^1".', 'line 1, column 4: found 1, expected a letter after \\^'],
      [
        '"\\',
        'line 1, column 3: found end of file, expected an escape sequence after \\',
      ],
      [
        '37#1.',
        'line 1, column 1: found base 37, expected a base from 2 to 36 before #',
      ],
      ['16#.', 'line 1, column 4: found ., expected a base 16 digit'],
      ['2#102.', 'line 1, column 5: found 2, expected . to end the term'],
      ['1.0e.', 'line 1, column 5: found ., expected a digit in the exponent'],
      [
        '1.0e400.',
        'line 1, column 1: found the float 1.0e400, expected a float within the range of a double',
      ],
      ['- a.', 'line 1, column 3: found a, expected a number after -'],
      [
        '$',
        'line 1, column 2: found end of file, expected a character after $',
      ],
      ['#{a => 1}.', 'line 1, column 1: found #, expected a term'],
      [
        'end.',
        "line 1, column 1: found reserved word end, expected a term (write 'end' for an atom)",
      ],
      [
        '{Port, 1}.',
        'line 1, column 2: found variable Port, expected a term (write \'Port\' for an atom or "Port" for a string)',
      ],
      [
        '_.',
        'line 1, column 1: found variable _, expected a term (write \'_\' for an atom or "_" for a string)',
      ],
      [
        '[a | b].',
        'line 1, column 4: found |, expected , or ] (lists with a tail [H | T] are not supported)',
      ],
      ['<<1>>.', 'line 1, column 3: found 1, expected a string in the binary'],
      [
        '<<"a"/latin1>>.',
        'line 1, column 7: found latin1, expected utf8 after /',
      ],
      [
        '<<"a" 1>>.',
        'line 1, column 7: found 1, expected , or >> to close the binary',
      ],
      ['{a,\u0001}.', 'line 1, column 4: found U+0001, expected a term'],
      [
        '{a}\u00a0.',
        'line 1, column 4: found U+00A0, expected . to end the term',
      ],
      [
        '['.repeat(MAX_TERM_DEPTH + 1),
        `line 1, column ${MAX_TERM_DEPTH + 1}: found [ nested ${MAX_TERM_DEPTH + 1} levels deep, ` +
          `expected at most ${MAX_TERM_DEPTH} levels of tuples and lists`,
      ],
    ])('should reject %j', (text, message) => {
      expectConfigError(
        () => parseTerms(text, 'test.cfg'),
        `test.cfg: ${message}`
      );
    });

    it('should stop at the nesting limit without exhausting the stack', () => {
      expectConfigError(
        () => parseTerms('{'.repeat(1_000_000), 'deep.cfg'),
        `deep.cfg: line 1, column ${MAX_TERM_DEPTH + 1}: found { nested ${MAX_TERM_DEPTH + 1} levels deep, ` +
          `expected at most ${MAX_TERM_DEPTH} levels of tuples and lists`
      );
    });
  });

  describe('large input', () => {
    it(`should read integers of up to ${MAX_NUMBER_DIGITS} digits in any base, and refuse longer ones where they start`, () => {
      const z = 'z'.repeat(MAX_NUMBER_DIGITS);
      expect(parseOne(`36#${z}.`)).toMatchObject({ value: 36n ** 1000n - 1n });
      expect(parseOne(`2#1${'0'.repeat(999)}.`)).toMatchObject({
        value: 2n ** 999n,
      });
      expect(parseOne(`${'9'.repeat(1000)}.`)).toMatchObject({
        value: 10n ** 1000n - 1n,
      });
      expect(parseOne(`1_${'0'.repeat(999)}.`)).toMatchObject({
        value: 10n ** 999n,
      });
      expectConfigError(
        () => parseTerms(`{port,\n  36#${z}z}.`, 'test.cfg'),
        'test.cfg: line 2, column 3: found a number of more than 1000 digits, expected at most 1000 digits'
      );
      expectConfigError(
        () => parseTerms(`-1.${'5'.repeat(1001)}.`, 'test.cfg'),
        'test.cfg: line 1, column 2: found a number of more than 1000 digits, expected at most 1000 digits'
      );
    });

    it('should refuse a 300 kB based integer within 100 ms', () => {
      // Read digit by digit into a bigint, the 300,000 digits would take seconds.
      const ms = fastestMs(100, () =>
        expectConfigError(
          () => parseTerms(`{port, 36#${'z'.repeat(300_000)}}.`, 'test.cfg'),
          'test.cfg: line 1, column 8: found a number of more than 1000 digits, expected at most 1000 digits'
        )
      );
      expect(ms).toBeLessThan(100);
    });

    it('should keep columns counting code points and lines across long strings and escapes', () => {
      const terms = parseTerms(
        '{"😀\\n\n😀😀", x}.\n{\'a😀\', "\\x{1F600}" "b", y}.',
        'test.cfg'
      );
      expect(terms[0]).toMatchObject({
        elements: [{ value: '😀\n\n😀😀' }, { line: 2, column: 6 }],
      });
      expect(terms[1]).toMatchObject({
        line: 3,
        elements: [
          { kind: 'atom', value: 'a😀' },
          { value: '😀b' },
          { column: 25 },
        ],
      });
    });

    it('should cut a long variable name in the message', () => {
      expectConfigError(
        () => parseTerms(`X${'y'.repeat(100_000)}.`, 'test.cfg'),
        `test.cfg: line 1, column 1: found variable X${'y'.repeat(58)}…, expected a term (write 'X${'y'.repeat(58)}…' for an atom or "X${'y'.repeat(58)}…" for a string)`
      );
    });
  });
});
