/**
 * Deterministic pseudo-random numbers in [0, 1): Marsaglia's xorshift32, seeded, so that a failing
 * case can be replayed from its seed.
 */
export function seededRandom(seed: number): () => number {
  // A zero state would stay zero; mix the seed so that nearby seeds diverge at once.
  let state = Math.imul(seed + 1, 0x9e3779b1) >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
  for (let i = 0; i < 4; i++) next();
  return next;
}

/** {@link seededRandom} with the draws that generators of test cases need. */
export class SeededRandom {
  private readonly _next: () => number;

  constructor(seed: number) {
    this._next = seededRandom(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this._next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}
