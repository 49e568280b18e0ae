/**
 * The slot boundaries every timer of the package ticks on: the legacy reader's, the cluster
 * primary's and a cluster worker's cumulative reader, on one steady clock, so that what they
 * sample in the same slot they sample in the same moment.
 */

/** A clock that never steps: the process's start time plus the monotonic time since. */
export function steadyNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A timer may fire up to a millisecond before it is due: the event loop counts whole ms. */
const EARLY_FIRE_MS = 2;

/**
 * Milliseconds from `now` until the clock next reads `phaseMs` past a slot boundary. A moment
 * less than {@link EARLY_FIRE_MS} away is the one a timer just fired for, early: the next is a
 * slot later, or it would tick twice.
 */
export function msUntilSlotPhase(
  now: number,
  slotMs: number,
  phaseMs = 0
): number {
  const delay = (phaseMs - (now % slotMs) + slotMs) % slotMs;
  return delay < EARLY_FIRE_MS ? delay + slotMs : delay;
}
