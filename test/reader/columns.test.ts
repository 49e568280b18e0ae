import { ColumnRecycler } from '../../src/reader/ColumnRecycler';
import { COPY_AT_ONCE, SlicedCopies } from '../../src/reader/columns';
import { CountingSlicer, Slicer } from '../../src/reader/Slicer';

/** `length` distinct values, none of them zero: a copy that misses one shows it. */
function numbered(length: number): Float64Array {
  return Float64Array.from({ length }, (_, i) => i * 1.5 + 1);
}

describe('SlicedCopies', () => {
  it('should fill every copy, chunk by chunk across slices, with the values of the columns', () => {
    const doubles = numbered(10_000);
    const bytes = Uint8Array.from({ length: 6_000 }, (_, i) => (i % 255) + 1);
    const empty = new Int32Array(16);
    const copies = new SlicedCopies(new ColumnRecycler());
    // Prefixes: the columns have room beyond the series they hold.
    const doublesCopy = copies.copyOf(doubles, 9_000);
    const bytesCopy = copies.copyOf(bytes, 5_000);
    const emptyCopy = copies.copyOf(empty, 0);
    expect(doublesCopy).toBeInstanceOf(Float64Array);
    expect(bytesCopy).toBeInstanceOf(Uint8Array);
    expect(emptyCopy).toBeInstanceOf(Int32Array);
    // Nothing is copied before it is asked.
    expect(doublesCopy.every(value => value === 0)).toBe(true);

    // A slice per unit: each chunk of 4,096 values ends one, but the last.
    const slicer = new CountingSlicer(1);
    let calls = 1;
    while (!copies.copy(slicer)) calls++;
    // 9,000 values in three chunks, 5,000 in two, then the empty copy.
    expect(calls).toBe(6);
    // Arrays of a length in steps of 4,096, so that a few more series ask for the same one.
    expect(doublesCopy.length).toBe(12_288);
    expect(bytesCopy.length).toBe(8_192);
    expect(emptyCopy.length).toBe(0);
    expect(doublesCopy.subarray(0, 9_000)).toEqual(doubles.subarray(0, 9_000));
    expect(bytesCopy.subarray(0, 5_000)).toEqual(bytes.subarray(0, 5_000));
    // Copies, not views: a later change to a column leaves them as they were.
    doubles[4_096] = -1;
    expect(doublesCopy[4_096]).toBe(4_096 * 1.5 + 1);
    // Done stays done.
    expect(copies.copy(slicer)).toBe(true);
  });

  it('should copy everything in one call with an unbounded slicer', () => {
    const doubles = numbered(50_000);
    const copies = new SlicedCopies(new ColumnRecycler());
    const copy = copies.copyOf(doubles, 50_000);
    expect(copies.copy(Slicer.unbounded())).toBe(true);
    expect(copy.subarray(0, 50_000)).toEqual(doubles);
  });

  it("should copy a column's values as they are at each publication", () => {
    const doubles = numbered(10_000);
    const first = new SlicedCopies(new ColumnRecycler());
    const before = first.copyOf(doubles, 10_000);
    first.copy(Slicer.unbounded());
    doubles[5_000] = -1;
    doubles[9_999] = -2;
    const second = new SlicedCopies(new ColumnRecycler());
    const after = second.copyOf(doubles, 10_000);
    second.copy(Slicer.unbounded());
    expect([before[5_000], before[9_999]]).toEqual([
      5_000 * 1.5 + 1,
      9_999 * 1.5 + 1,
    ]);
    expect([after[5_000], after[9_999]]).toEqual([-1, -2]);
  });

  it('COPY_AT_ONCE should copy when asked', () => {
    const doubles = numbered(100);
    const copy = COPY_AT_ONCE.copyOf(doubles, 60);
    doubles[0] = -1;
    expect(copy).toEqual(numbered(60));
  });
});
