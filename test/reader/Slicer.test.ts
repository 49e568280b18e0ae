import { Slicer } from '../../src/reader/Slicer';

describe('Slicer', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** Counts units until the slice's budget is used; returns how many it took. */
  function unitsUntilDue(slicer: Slicer, msPerUnit: number): number {
    let units = 0;
    do {
      units++;
      jest.advanceTimersByTime(msPerUnit);
    } while (!slicer.due());
    return units;
  }

  it('should end a slice once its budget is used, and count each slice, the longest and all together', async () => {
    const slicer = new Slicer(2);
    // The clock is read every 16 units: 16 units of 0.25 ms pass the budget of 2 ms.
    expect(unitsUntilDue(slicer, 0.25)).toBe(16);
    const paused = slicer.pause();
    await jest.advanceTimersByTimeAsync(0);
    await paused;
    expect(unitsUntilDue(slicer, 0.125)).toBe(16);
    slicer.end();
    expect(slicer.slices).toBe(2);
    expect(slicer.longestMs).toBe(4);
    expect(slicer.totalMs).toBe(6);
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
