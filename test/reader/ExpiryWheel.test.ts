import { ExpiryWheel } from '../../src/reader/ExpiryWheel';
import { CountingSlicer, Slicer } from '../../src/reader/Slicer';

/** Every entry `wheel` expires through `slot`, as `[first, second]` pairs, in slices of `perSlice` units. */
function expired(
  wheel: ExpiryWheel<number>,
  slot: number,
  perSlice = Infinity
): number[][] {
  const entries: number[][] = [];
  let slicer = new CountingSlicer(perSlice);
  while (
    !wheel.expire(slot, slicer, (list, at) =>
      entries.push([list[at]!, list[at + 1]!])
    )
  )
    slicer = new CountingSlicer(perSlice);
  return entries;
}

describe('ExpiryWheel', () => {
  it('should hand back each entry once, in order, windowSlots after its slot', () => {
    const wheel = new ExpiryWheel<number>(3, 2);
    wheel.addPair(10, 1, 100);
    wheel.addPair(10, 2, 200);
    wheel.addPair(11, 3, 300);
    expect(expired(wheel, 12)).toEqual([]);
    expect(expired(wheel, 13)).toEqual([
      [1, 100],
      [2, 200],
    ]);
    expect(expired(wheel, 14)).toEqual([[3, 300]]);
    expect(expired(wheel, 20)).toEqual([]);
  });

  it('should make a list as long as the last one and hand back only what was added to it', () => {
    const wheel = new ExpiryWheel<number>(1, 2);
    for (let i = 0; i < 50; i++) wheel.addPair(1, i, i);
    // The next slot's list starts 100 long; it gets two pairs.
    wheel.addPair(2, 7, 70);
    wheel.addPair(2, 8, 80);
    wheel.addPair(3, 9, 90);
    expect(expired(wheel, 2)).toHaveLength(50);
    expect(expired(wheel, 3)).toEqual([
      [7, 70],
      [8, 80],
    ]);
    expect(expired(wheel, 4)).toEqual([[9, 90]]);
  });

  it('should expire a list still being appended to when the clock leaps past the window', () => {
    const wheel = new ExpiryWheel<number>(2, 2);
    for (let i = 0; i < 8; i++) wheel.addPair(5, i, -i);
    wheel.addPair(6, 1, 1);
    wheel.addPair(6, 2, 2);
    // Slot 6's list, made 16 long, holds two pairs when slot 100 expires it.
    expect(expired(wheel, 100)).toHaveLength(10);
    // Added again afterwards, for a slot whose list is gone: a list of its own.
    wheel.addPair(101, 3, 3);
    expect(expired(wheel, 103)).toEqual([[3, 3]]);
  });

  it('should fill a list again once expired, handing back only what was added since', () => {
    const wheel = new ExpiryWheel<number>(2, 2);
    for (let i = 0; i < 50; i++) wheel.addPair(1, i, 10 * i);
    expect(expired(wheel, 3)).toHaveLength(50);
    // The next list is the one just expired, its 100 items still there past what is added.
    wheel.addPair(10, 7, 70);
    wheel.addPair(11, 8, 80);
    expect(expired(wheel, 12)).toEqual([[7, 70]]);
    expect(expired(wheel, 13)).toEqual([[8, 80]]);
  });

  it('should find the lists due after a leap of the clock without walking every slot', () => {
    const wheel = new ExpiryWheel<number>(2, 2);
    wheel.addPair(5, 1, 1);
    wheel.addPair(9, 2, 2);
    wheel.addPair(7, 3, 3);
    // A trillion slots later: walked one by one, this would outlast the test's timeout by hours.
    expect(expired(wheel, 1e12)).toEqual([
      [1, 1],
      [3, 3],
      [2, 2],
    ]);
    wheel.addPair(1e12 + 1, 4, 4);
    expect(expired(wheel, 1e12 + 2)).toEqual([]);
    expect(expired(wheel, 1e12 + 3)).toEqual([[4, 4]]);
  });

  it('should keep what a list held when its slot is appended to again after another', () => {
    const wheel = new ExpiryWheel<number>(5, 1);
    wheel.add(1, 1);
    wheel.add(2, 2);
    wheel.add(1, 3);
    const single: number[] = [];
    wheel.expire(6, Slicer.unbounded(), (list, at) => single.push(list[at]!));
    expect(single).toEqual([1, 3]);
  });

  it('should resume where a slice ended', () => {
    const wheel = new ExpiryWheel<number>(1, 2);
    for (let i = 0; i < 40; i++) wheel.addPair(i % 2, i, i);
    const entries = expired(wheel, 2, 3);
    expect(entries.map(([first]) => first)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => 2 * i),
      ...Array.from({ length: 20 }, (_, i) => 2 * i + 1),
    ]);
  });
});
