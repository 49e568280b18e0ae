/* The typed-array columns in which the store keeps the working state of its series, by number. */

/** How many series the first columns hold; each doubles as it fills. */
export const INITIAL_COLUMN_LENGTH = 1024;

type Column = Float64Array | Int32Array | Uint8Array;

/** A column twice as long as `column`, with its values. */
function grownColumn<T extends Column>(column: T): T {
  const next = new (column.constructor as new (length: number) => T)(
    column.length * 2
  );
  next.set(column);
  return next;
}

/**
 * Columns of one length with room for the series numbered `number`: the same ones, or each
 * twice as long, with its values. Series are numbered in order, so one more is one more place.
 */
export function withRoomFor<T extends Column[]>(
  number: number,
  columns: [...T]
): [...T] {
  if (number < columns[0]!.length) return columns;
  return columns.map(grownColumn) as [...T];
}
