/* The typed-array columns in which the store keeps the working state of its series, by number. */

/** How many series the first columns hold; each doubles as it fills. */
export const INITIAL_COLUMN_LENGTH = 1024;

type Column = Float64Array | Int32Array | Uint8Array;

/**
 * A column with room for `length` values: the same one, or one at least twice as long with its
 * values, so that a column grown a little at a time is copied a few times only.
 */
export function withRoom<T extends Column>(column: T, length: number): T {
  if (length <= column.length) return column;
  const next = new (column.constructor as new (length: number) => T)(
    Math.max(length, 2 * column.length)
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
  return columns.map(column => withRoom(column, number + 1)) as [...T];
}

/**
 * `value` as a small integer when it is a 32-bit one. A number read from a typed array and
 * written to an object's field is otherwise kept in a number object of its own, one more object
 * for each field of each series for the garbage collector to trace, and one more memory read
 * for each field read. Fields that only ever hold integers take `| 0` instead.
 */
export function unboxed(value: number): number {
  return (value | 0) === value ? value | 0 : value;
}
