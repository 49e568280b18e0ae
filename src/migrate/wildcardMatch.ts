/**
 * fnmatch(3)-style wildcards (`*`, `?`, `[a-z]`, `[!…]`, `\` escapes), as collectd's `Filter` and
 * an `Include` path's last part match file names, in time linear in the pattern times the name:
 * no regular expression, so no backtracking however many `*` a pattern holds.
 */

/** A run of any characters, or a test of one character. */
type Part = '*' | ((character: string) => boolean);

/** A bracket expression starting at `pattern[start] === '['`; undefined if it never closes. */
function bracket(
  pattern: readonly string[],
  start: number
): { test: (character: string) => boolean; end: number } | undefined {
  let i = start + 1;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  // A `]` right after the opening (or the negation) is a member, not the end.
  for (let first = true; i < pattern.length; first = false) {
    if (pattern[i] === ']' && !first) {
      return {
        test: character =>
          ranges.some(
            ([low, high]) => character >= low && character <= high
          ) !== negated,
        end: i,
      };
    }
    let low = pattern[i]!;
    if (low === '\\' && i + 1 < pattern.length) low = pattern[++i]!;
    if (
      pattern[i + 1] === '-' &&
      i + 2 < pattern.length &&
      pattern[i + 2] !== ']'
    ) {
      let high = pattern[i + 2]!;
      i += 2;
      if (high === '\\' && i + 1 < pattern.length) high = pattern[++i]!;
      ranges.push([low, high]);
    } else ranges.push([low, low]);
    i++;
  }
  return undefined;
}

function compile(pattern: string): Part[] {
  const characters = Array.from(pattern);
  const parts: Part[] = [];
  for (let i = 0; i < characters.length; i++) {
    const character = characters[i]!;
    const set = character === '[' ? bracket(characters, i) : undefined;
    if (character === '*') {
      // Consecutive stars match what one does.
      if (parts.at(-1) !== '*') parts.push('*');
    } else if (character === '?') parts.push(() => true);
    else if (set !== undefined) {
      parts.push(set.test);
      i = set.end;
    } else {
      const literal =
        character === '\\' && i + 1 < characters.length
          ? characters[++i]!
          : character;
      parts.push(other => other === literal);
    }
  }
  return parts;
}

/**
 * Whether `name` matches the wildcard `pattern` as a whole. On a mismatch after a `*`, only that
 * last `*` takes one more character: the earlier ones never need to, which keeps it linear.
 */
export function matchesWildcard(pattern: string, name: string): boolean {
  const parts = compile(pattern);
  const characters = Array.from(name);
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < characters.length) {
    const part = parts[p];
    if (part === '*') {
      star = p++;
      resume = n;
    } else if (part !== undefined && part(characters[n]!)) {
      p++;
      n++;
    } else if (star === -1) return false;
    else {
      p = star + 1;
      n = ++resume;
    }
  }
  while (parts[p] === '*') p++;
  return p === parts.length;
}
