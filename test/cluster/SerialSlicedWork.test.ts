import { SerialSlicedWork } from '../../src/cluster/SerialSlicedWork';
import { MetricStore } from '../../src/reader/MetricStore';
import { resolveReaderOptions } from '../../src/reader/options';
import { encodeCollection } from '../../src/reader/clusterWire';
import { createRig } from '../helpers';

describe('SerialSlicedWork', () => {
  const store = new MetricStore(resolveReaderOptions({ sliceMs: 1 }));

  describe('run', () => {
    it('should run jobs one after the other, each to its end, though they pause', async () => {
      const work = new SerialSlicedWork(
        store,
        { slotMs: 1_000, monotonicNow: () => 5_500 },
        8
      );
      const log: string[] = [];
      const job = (name: string) => async () => {
        log.push(`${name} start`);
        await new Promise<void>(done => setImmediate(done));
        log.push(`${name} end`);
      };
      expect(work.run(job('a'))).toBe(true);
      expect(work.run(job('b'))).toBe(true);
      await work.idle();
      expect(log).toEqual(['a start', 'a end', 'b start', 'b end']);
    });

    it('should refuse a job past the most queued, and take jobs again once they ran', async () => {
      const work = new SerialSlicedWork(
        store,
        { slotMs: 1_000, monotonicNow: () => 5_500 },
        2
      );
      const ran: number[] = [];
      expect(work.run(() => void ran.push(1))).toBe(true);
      expect(work.run(() => void ran.push(2))).toBe(true);
      expect(work.run(() => void ran.push(3))).toBe(false);
      await work.idle();
      expect(ran).toEqual([1, 2]);
      expect(work.run(() => void ran.push(4))).toBe(true);
      await work.idle();
      expect(ran).toEqual([1, 2, 4]);
    });

    it('should survive a job that throws, and run the next', async () => {
      const work = new SerialSlicedWork(
        store,
        { slotMs: 1_000, monotonicNow: () => 5_500 },
        2
      );
      let ran = false;
      work.run(() => {
        throw new Error('defect');
      });
      work.run(() => void (ran = true));
      await work.idle();
      expect(ran).toBe(true);
    });

    it('should pause a long job in slices of the budget', async () => {
      const work = new SerialSlicedWork(
        store,
        { slotMs: 1_000, monotonicNow: () => 5_500 },
        2
      );
      const sliceMs: number[] = [];
      let slices = 0;
      // Each interval starts no later than the slicer's own slice (before the job is queued,
      // then before each pause) and ends once it is due, so it can only be longer than the slice.
      let start = performance.now();
      work.run(async slicer => {
        // Work until the third slice begins (or 5 s pass), timing each slice until it is due.
        const giveUp = performance.now() + 5_000;
        while (slicer.slices < 3 && performance.now() < giveUp)
          if (slicer.due()) {
            sliceMs.push(performance.now() - start);
            start = performance.now();
            await slicer.pause();
          }
        slices = slicer.slices;
      });
      await work.idle();
      expect(slices).toBe(3);
      // Each slice ends once the store's budget (1 ms) is spent, not before; a loaded machine
      // makes slices longer, never shorter, so only the lower bound is asserted.
      expect(sliceMs).toHaveLength(2);
      for (const ms of sliceMs) expect(ms).toBeGreaterThanOrEqual(1);
    });
  });

  describe('advance', () => {
    it('should move the window to the slot of the monotonic clock, never back', async () => {
      let now = 5_500;
      const work = new SerialSlicedWork(
        store,
        { slotMs: 1_000, monotonicNow: () => now },
        2
      );
      work.run(async slicer => void (await work.advance(slicer)));
      await work.idle();
      expect(work.slot).toBe(5);
      now = 3_000;
      work.run(async slicer => void (await work.advance(slicer)));
      await work.idle();
      expect(work.slot).toBe(5);
    });
  });
});

describe("a worker's delta collection on the wire", () => {
  it('should carry only the series recorded since the last tick', async () => {
    const rig = createRig();
    try {
      const counter = rig.provider.getMeter('app').createCounter('sent');
      for (let h = 0; h < 1_000; h++) counter.add(1, { host_type: `h${h}` });
      const first = encodeCollection(
        (await rig.reader.collect()).resourceMetrics,
        () => true
      );
      counter.add(1, { host_type: 'h7' });
      const second = encodeCollection(
        (await rig.reader.collect()).resourceMetrics,
        () => true
      );
      expect(JSON.parse(second.body)).toEqual({
        v: 2,
        a: [{ host_type: 'h7' }],
        s: [['app', '', null, [['sent', 's', 0, [[0, 1]]]]]],
      });
      expect(second.body.length * 100).toBeLessThan(first.body.length);
    } finally {
      await rig.close();
    }
  });
});
