/**
 * Removes the first `count` items of `array` in place. Neither `splice` (which allocates an
 * array of what it removes) nor `copyWithin` and a `length` assignment (runtime calls that cost
 * over a microsecond on a short array): a copy loop and `pop`, which the compiler inlines.
 */
export function dropFront(array: unknown[], count: number): void {
  const kept = array.length - count;
  for (let i = 0; i < kept; i++) array[i] = array[i + count];
  for (let i = 0; i < count; i++) array.pop();
}
