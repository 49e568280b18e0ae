import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const FIXTURE = join(__dirname, 'fixtures', 'sampling.js');
const SLOT_MS = 200;

describe('a cluster worker with the one-call provider', () => {
  it("should sample an observable gauge for the primary's legacy API and its exposition in the same moment", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [FIXTURE], {
      timeout: 30_000,
    });
    const times = JSON.parse(stdout) as number[];
    expect(times).toHaveLength(12);
    // Both readers tick on the slot boundaries (the provider was made 70 ms past one): callbacks
    // come in pairs, one turn apart, each pair whole slots after the one before. The first
    // collection of each reader is slow, so the first pair is left out.
    const gaps: number[] = [];
    const slots: number[] = [];
    for (let i = 2; i + 1 < times.length; i += 2) {
      gaps.push(times[i + 1]! - times[i]!);
      slots.push((times[i]! - times[i - 2]!) / SLOT_MS);
    }
    const offSlot = slots.map(n => Math.abs(n - Math.round(n)));
    expect({ times, tooFar: gaps.filter(gap => gap >= 35) }).toEqual({
      times,
      tooFar: [],
    });
    expect(Math.max(...offSlot)).toBeLessThan(0.2);
  }, 35_000);
});
