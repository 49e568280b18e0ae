/**
 * Wildcards as fnmatch(3) matches them for collectd's `Filter`, without regular expressions.
 */
import { matchesWildcard } from '../../src/migrate/wildcardMatch';

describe('matchesWildcard', () => {
  it.each([
    ['*.conf', 'cpu.conf', true],
    ['*.conf', 'cpu.conf.bak', false],
    ['*.conf', '.conf', true],
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['?.conf', 'a.conf', true],
    ['?.conf', 'ab.conf', false],
    ['[a-c]*.conf', 'b1.conf', true],
    ['[a-c]*.conf', 'd1.conf', false],
    ['[!a-c]*', 'd', true],
    ['[!a-c]*', 'a', false],
    ['[^a]', 'b', true],
    ['[]]', ']', true],
    ['[!]]', ']', false],
    ['[a-]', '-', true],
    ['[', '[', true],
    ['a[b', 'a[b', true],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['a.c', 'abc', false],
    ['(a|b)+', '(a|b)+', true],
    ['**a**', 'bab', true],
    ['*a*b', 'xaybzb', true],
    ['*a*b', 'xaybzbc', false],
    ['ü?', 'üé', true],
  ])('should match %j against %j: %s', (pattern, name, expected) => {
    expect(matchesWildcard(pattern, name)).toBe(expected);
  });

  it('should answer in linear time however many * the pattern holds', () => {
    const started = performance.now();
    expect(matchesWildcard(`${'*a'.repeat(1000)}*b`, 'a'.repeat(5000))).toBe(
      false
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
