/**
 * The "did you mean" of every message about an unknown name (options, configuration keys,
 * values such as a variant): the allowed names, and the one the name found looks like a typo
 * of. Its cost is bounded whatever the name found: names too long to be a typo are not
 * compared, names of too different a length are skipped before any edit distance, and the
 * distance keeps three rows of its matrix, not the whole of it.
 */

/** The most edits a typo may have. */
const MAX_EDITS = 2;
/**
 * Names found longer than this are not compared at all: every allowed name is a few dozen
 * characters at most, so such a name is no typo of one.
 */
export const MAX_COMPARED_LENGTH = 256;

const QUOTES = /^"|"$/g;
const UNDERSCORES = /_/g;

/**
 * `one of a, b, c (did you mean b?)`: the allowed names, and the closest one when the
 * name found looks like a typo of it. `allowed` is shown as given (quote it first if wanted).
 */
export function expectedOneOf(
  found: string,
  allowed: readonly string[],
  show: (name: string) => string = n => n
): string {
  const list = listOf(allowed, show);
  const guess = closestName(found, allowed);
  return guess === undefined ? list : `${list} (did you mean ${show(guess)}?)`;
}

/** `a`, `a or b`, or `one of a, b, c`. */
export function listOf(
  allowed: readonly string[],
  show: (name: string) => string = n => n
): string {
  return allowed.length === 1
    ? show(allowed[0]!)
    : allowed.length === 2
      ? `${show(allowed[0]!)} or ${show(allowed[1]!)}`
      : `one of ${allowed.map(show).join(', ')}`;
}

/**
 * The allowed name closest to `found`, if it is within two edits and within a third of
 * its own length (so `x` does not suggest `a`). Quotes around allowed names are ignored;
 * so are case and underscores, so that `all_metrics_are_global` finds `allMetricsAreGlobal`.
 */
export function closestName(
  found: string,
  allowed: readonly string[]
): string | undefined {
  if (found.length > MAX_COMPARED_LENGTH) return undefined;
  const simpleFound = simplify(found);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of allowed) {
    const unquoted = name.replace(QUOTES, '');
    const bare = simplify(unquoted);
    const limit = Math.min(MAX_EDITS, Math.floor(unquoted.length / 3));
    // Each edit changes the length by one at most.
    if (Math.abs(simpleFound.length - bare.length) > limit) continue;
    const distance = editDistance(simpleFound, bare);
    if (distance < bestDistance && distance <= limit) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

function simplify(name: string): string {
  return name.toLowerCase().replace(UNDERSCORES, '');
}

/**
 * Edit distance where swapping two neighbours counts as one edit (`hots` → `host`), keeping
 * only the rows a cell depends on: the current one and the two before it.
 */
function editDistance(a: string, b: string): number {
  let before = new Uint32Array(b.length + 1);
  let previous = Uint32Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + substitution
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
