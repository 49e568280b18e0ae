import { msUntilSlotPhase } from '../../src/reader/slotClock';

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
