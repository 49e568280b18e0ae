import {
  msUntilSlotPhase,
  SlotTicker,
  steadyNow,
} from '../../src/reader/slotClock';

describe('msUntilSlotPhase', () => {
  it('should wait until the next slot boundary', () => {
    expect(msUntilSlotPhase(1_099, 200)).toBe(101);
    expect(msUntilSlotPhase(1_000, 200)).toBe(200);
    expect(msUntilSlotPhase(1_002.5, 200)).toBeCloseTo(197.5, 9);
  });

  it('should wait a whole slot more when a timer fired just before the boundary it was due at', () => {
    // Fired 0.6 ms early for 1,000: the next tick is at 1,200, not 0.6 ms later.
    expect(msUntilSlotPhase(999.4, 200)).toBeCloseTo(200.6, 9);
    expect(msUntilSlotPhase(998.5, 200)).toBeCloseTo(201.5, 9);
    expect(msUntilSlotPhase(997.5, 200)).toBeCloseTo(2.5, 9);
  });

  it('should wait until the phase past a boundary', () => {
    expect(msUntilSlotPhase(1_000, 200, 50)).toBe(50);
    expect(msUntilSlotPhase(1_060, 200, 50)).toBe(190);
    expect(msUntilSlotPhase(1_049.5, 200, 50)).toBeCloseTo(200.5, 9);
  });
});

describe('SlotTicker', () => {
  const deferred = (): { promise: Promise<void>; resolve: () => void } => {
    let resolve!: () => void;
    const promise = new Promise<void>(r => (resolve = r));
    return { promise, resolve };
  };

  it('should join a run under way, and run afresh after it', async () => {
    const gate = deferred();
    let runs = 0;
    const ticker = new SlotTicker(async () => {
      runs++;
      if (runs === 1) await gate.promise;
    }, 60_000);
    const first = ticker.run();
    const joined = ticker.run();
    const afresh = ticker.runAfresh();
    expect(runs).toBe(1);
    gate.resolve();
    await Promise.all([first, joined, afresh]);
    expect(runs).toBe(2);
  });

  it('should tick on slot boundaries until stopped, and wait for the run under way', async () => {
    const slotMs = 20;
    const times: number[] = [];
    const ticker = new SlotTicker(async () => {
      times.push(steadyNow());
      await new Promise(resolve => setTimeout(resolve, 5));
    }, slotMs);
    ticker.start();
    const keepAlive = setInterval(() => undefined, 1_000);
    try {
      while (times.length < 4) await new Promise(r => setTimeout(r, 5));
      await ticker.stop();
      const stoppedAt = times.length;
      await new Promise(resolve => setTimeout(resolve, 3 * slotMs));
      expect(times.length).toBe(stoppedAt);
      // Each tick at a boundary (up to 2 ms early) or past it: never two in one slot.
      const slots = times.map(t => Math.floor((t + 2) / slotMs));
      expect(new Set(slots).size).toBe(slots.length);
    } finally {
      clearInterval(keepAlive);
    }
  });
});
