/* The typed-array columns in which the store keeps the working state of its series, by number. */

/** How many series the first columns hold; each doubles as it fills. */
export const INITIAL_COLUMN_LENGTH = 1024;

type Column = Float64Array | Int32Array | Uint8Array;

/** A column twice as long as `column`, with its values. */
export function grownColumn<T extends Column>(column: T): T {
  const next = new (column.constructor as new (length: number) => T)(
    column.length * 2
  );
  next.set(column);
  return next;
}
