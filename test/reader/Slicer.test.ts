import { CHECK_EVERY, CountingSlicer, Slicer } from '../../src/reader/Slicer';

describe('Slicer', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** Counts units of `cost` until the slice's budget is used; returns how many it took. */
  function unitsUntilDue(slicer: Slicer, msPerUnit: number, cost = 1): number {
    let units = 0;
    do {
      units++;
      jest.advanceTimersByTime(msPerUnit);
    } while (!slicer.due(cost));
    return units;
  }

  it('should end a slice once its budget is used, and count each slice, the longest and all together', async () => {
    const slicer = new Slicer(2);
    // The clock is read once per CHECK_EVERY of cost: here every 16 units, and 16 units of
    // 0.25 ms pass the budget of 2 ms.
    expect(unitsUntilDue(slicer, 0.25, CHECK_EVERY / 16)).toBe(16);
    const paused = slicer.pause();
    await jest.advanceTimersByTimeAsync(0);
    await paused;
    expect(unitsUntilDue(slicer, 0.125, CHECK_EVERY / 16)).toBe(16);
    slicer.end();
    expect(slicer.slices).toBe(2);
    expect(slicer.longestMs).toBe(4);
    expect(slicer.totalMs).toBe(6);
  });

  it("should read the clock by the units' cost, not their number", () => {
    const slicer = new Slicer(2);
    // Units of cost 1 taking 0.01 ms: the first reading, at 2.56 ms, ends the slice.
    expect(unitsUntilDue(slicer, 0.01)).toBe(CHECK_EVERY);
    slicer.end();
    expect(slicer.longestMs).toBeCloseTo(2.56, 6);
  });

  it('should read the clock again from the start of each slice', async () => {
    const slicer = new Slicer(2);
    // Half the interval's cost in the first slice, which ends by a pause.
    for (let i = 0; i < CHECK_EVERY / 2; i++) expect(slicer.due()).toBe(false);
    const paused = slicer.pause();
    await jest.advanceTimersByTimeAsync(0);
    await paused;
    // The next reading falls a whole interval into the new slice.
    jest.advanceTimersByTime(5);
    for (let i = 1; i < CHECK_EVERY; i++) expect(slicer.due()).toBe(false);
    expect(slicer.due()).toBe(true);
  });

  it("should end a counting slicer's slice every few units, whatever their cost or the time", async () => {
    const slicer = new CountingSlicer(3);
    const ends: number[] = [];
    for (let unit = 1; unit <= 7; unit++) if (slicer.due(1000)) ends.push(unit);
    expect(ends).toEqual([3, 6]);
    const paused = slicer.pause();
    await jest.advanceTimersByTimeAsync(0);
    await paused;
    // A pause starts the count again.
    expect([slicer.due(), slicer.due(), slicer.due()]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('should never end an unbounded slice', () => {
    const slicer = Slicer.unbounded();
    for (let i = 0; i < 1000; i++) {
      jest.advanceTimersByTime(1);
      expect(slicer.due()).toBe(false);
    }
    slicer.end();
    expect(slicer.slices).toBe(1);
    expect(slicer.totalMs).toBe(1000);
  });
});
