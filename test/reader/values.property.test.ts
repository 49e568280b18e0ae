import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { VARIANTS } from '../../src/attributes';
import { jsonSerializer } from '../../src/snapshot/jsonSerializer';
import { xmlSerializer } from '../../src/snapshot/xmlSerializer';
import { createRig, type Rig } from '../helpers';

/*
 * Property: whatever values the instruments report, through a real MeterProvider and the
 * reader, the served value equals a straightforward model of the legacy type, and every body
 * of every endpoint parses as its format says.
 */

const SLOT_MS = 1_000;
const WINDOW_SLOTS = 5;
const HOSTS = ['a', 'b'] as const;

/** What JSON can carry of a number (README: NaN is served as 0, ±∞ as ±1.7976931348623157e308). */
function servable(value: number): number {
  if (Number.isNaN(value)) return 0;
  if (value === Infinity) return Number.MAX_VALUE;
  if (value === -Infinity) return -Number.MAX_VALUE;
  return value === 0 ? 0 : value;
}

const special = fc.constantFrom(
  NaN,
  Infinity,
  -Infinity,
  -0,
  0,
  1e308,
  -1e308,
  1e17,
  1,
  -1,
  12.5
);
const value = fc.oneof(
  special,
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noDefaultInfinity: true, noNaN: true })
);
/** One tick: the values recorded into each host during its slot. */
const tick = fc.record({
  a: fc.array(value, { maxLength: 3 }),
  b: fc.array(value, { maxLength: 3 }),
});
const ticks = fc.array(tick, { minLength: 1, maxLength: 12 });
type Tick = { a: number[]; b: number[] };

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Feeds the ticks through a reader; after each one, checks the bodies and hands the served values to `check`. */
async function run(
  steps: Tick[],
  record: (rig: Rig, host: 'a' | 'b', value: number) => void,
  check: (step: number, served: Served) => void
): Promise<void> {
  await rig?.close();
  rig = createRig({ windowMs: WINDOW_SLOTS * SLOT_MS, slotMs: SLOT_MS });
  for (let step = 0; step < steps.length; step++) {
    for (const host of HOSTS)
      for (const v of steps[step]![host]) record(rig, host, v);
    await rig.advance(SLOT_MS);
    check(step, servedValues(rig));
  }
}

interface Served {
  host: Partial<Record<'a' | 'b', Record<string, number>>>;
  hostType: Record<string, number> | undefined;
  all: Record<string, number> | undefined;
}

function body(rig: Rig, variant: 'host_type' | 'host', path: string[]): any {
  const json = rig.reader.snapshot.respond(variant, path, jsonSerializer);
  const xml = rig.reader.snapshot.respond(variant, path, xmlSerializer);
  expect(XMLValidator.validate(xml.body.toString())).toBe(true);
  return { status: json.status, json: JSON.parse(json.body.toString()) };
}

/** Every endpoint of both variants parses; the values of metric `m`. */
function servedValues(rig: Rig): Served {
  for (const variant of VARIANTS) {
    for (const path of [
      ['metrics'],
      ['metrics', 'all'],
      ['metrics', 'all', 'm'],
      ['metrics', 'global'],
      ['metrics', variant, 'h'],
      ['metrics', variant, 'a'],
      ['metrics', variant, 'b'],
    ])
      body(rig, variant, path);
  }
  const metric = (variant: 'host_type' | 'host', path: string[]) => {
    const { status, json } = body(rig, variant, path);
    return status === 200 ? (json.metric as Record<string, number>) : undefined;
  };
  return {
    host: {
      a: metric('host', ['metrics', 'host', 'a', 'm']),
      b: metric('host', ['metrics', 'host', 'b', 'm']),
    },
    hostType: metric('host_type', ['metrics', 'host_type', 'h', 'm']),
    all: metric('host_type', ['metrics', 'all', 'm']),
  };
}

const attributes = (host: 'a' | 'b') => ({ host_type: 'h', host });

/** The SDK's delta of one slot: recordings added up from 0 in order. */
const fold = (values: number[]) => values.reduce((sum, v) => sum + v, 0);

describe('served values (property-based)', () => {
  it('should serve a gauge as its last value, sanitised after the sum over hosts', async () => {
    await fc.assert(
      fc.asyncProperty(ticks, async steps => {
        const last: Partial<Record<'a' | 'b', number>> = {};
        await run(
          steps,
          (r, host, v) =>
            r.provider
              .getMeter('p')
              .createGauge('m')
              .record(v, attributes(host)),
          (step, served) => {
            for (const host of HOSTS) {
              const values = steps[step]![host];
              if (values.length > 0) last[host] = values[values.length - 1];
              if (last[host] !== undefined)
                expect(served.host[host]!.value).toBe(servable(last[host]));
            }
            if (last.a === undefined && last.b === undefined) return;
            const sum = (last.a ?? 0) + (last.b ?? 0);
            expect(served.hostType!.value).toBe(servable(sum));
            expect(served.all).toEqual({ value: servable(sum) });
          }
        );
      }),
      { numRuns: 40 }
    );
  });

  it('should serve an up-down counter as the exact sum of its finite increases', async () => {
    await fc.assert(
      fc.asyncProperty(ticks, async steps => {
        const total: Partial<Record<'a' | 'b', number>> = {};
        await run(
          steps,
          (r, host, v) =>
            r.provider
              .getMeter('p')
              .createUpDownCounter('m')
              .add(v, attributes(host)),
          (step, served) => {
            for (const host of HOSTS) {
              const values = steps[step]![host];
              if (values.length === 0) continue;
              const delta = fold(values);
              // An increase that is not finite is left out; the series is created all the same.
              total[host] =
                (total[host] ?? 0) + (Number.isFinite(delta) ? delta : 0);
              expect(served.host[host]!.value).toBe(servable(total[host]));
            }
            if (total.a === undefined && total.b === undefined) return;
            const sum = (total.a ?? 0) + (total.b ?? 0);
            expect(served.hostType!.value).toBe(servable(sum));
            expect(served.all).toEqual({ value: servable(sum) });
          }
        );
      }),
      { numRuns: 40 }
    );
  });

  it('should serve an observable up-down counter as its last observation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(value, { minLength: 1, maxLength: 12 }),
        async values => {
          await rig?.close();
          rig = createRig();
          let current = values[0]!;
          rig.provider
            .getMeter('p')
            .createObservableUpDownCounter('m')
            .addCallback(result => result.observe(current, { host_type: 'h' }));
          for (const v of values) {
            current = v;
            await rig.advance(SLOT_MS);
            expect(
              body(rig, 'host_type', ['metrics', 'host_type', 'h', 'm']).json
                .metric.value
            ).toBe(servable(v));
          }
        }
      ),
      { numRuns: 40 }
    );
  });

  it('should serve a spiral as the sum of its finite increases since start and within the window', async () => {
    await fc.assert(
      fc.asyncProperty(ticks, async steps => {
        const count: Partial<Record<'a' | 'b', number>> = {};
        const slots: Record<'a' | 'b', number[]> = { a: [], b: [] };
        await run(
          steps,
          (r, host, v) =>
            r.provider
              .getMeter('p')
              .createCounter('m')
              .add(v, attributes(host)),
          (step, served) => {
            const one: Partial<Record<'a' | 'b', number>> = {};
            for (const host of HOSTS) {
              // The SDK drops negative increases of a monotonic counter.
              const values = steps[step]![host].filter(v => !(v < 0));
              const delta = fold(values);
              const kept = Number.isFinite(delta) ? delta : 0;
              slots[host].push(kept);
              if (values.length > 0) count[host] = (count[host] ?? 0) + kept;
              if (count[host] === undefined) continue;
              one[host] = fold(slots[host].slice(-WINDOW_SLOTS));
              expect(served.host[host]).toEqual({
                count: servable(count[host]),
                one: servable(one[host]),
              });
            }
            if (count.a === undefined && count.b === undefined) return;
            const expected = {
              count: servable((count.a ?? 0) + (count.b ?? 0)),
              one: servable((one.a ?? 0) + (one.b ?? 0)),
            };
            expect(served.hostType).toEqual(expected);
            expect(served.all).toEqual(expected);
          }
        );
      }),
      { numRuns: 40 }
    );
  });

  it('should serve a histogram with the window count, exact mean, min and max, and ordered percentiles', async () => {
    await fc.assert(
      fc.asyncProperty(ticks, async steps => {
        // Per host, the finite non-negative values of each slot: what the SDK's histograms take.
        const slots: Record<'a' | 'b', number[][]> = { a: [], b: [] };
        let seen = false;
        await run(
          steps,
          (r, host, v) =>
            r.provider
              .getMeter('p')
              .createHistogram('m')
              .record(v, attributes(host)),
          (step, served) => {
            for (const host of HOSTS)
              slots[host].push(
                steps[step]![host].filter(v => Number.isFinite(v) && !(v < 0))
              );
            seen ||= HOSTS.some(host => slots[host].some(s => s.length > 0));
            if (!seen) return;
            const windowOf = (hosts: readonly ('a' | 'b')[]) => {
              const values = hosts.flatMap(host =>
                slots[host].slice(-WINDOW_SLOTS).flat()
              );
              // Each host's sum is its slots' sums, oldest first; hosts are then added.
              const sum = hosts.reduce(
                (total, host) =>
                  total +
                  fold(
                    slots[host]
                      .slice(-WINDOW_SLOTS)
                      .map(s => fold(s.filter(v => v !== 0)))
                  ),
                0
              );
              return { values, sum };
            };
            const expectHistogram = (
              metric: Record<string, number> | undefined,
              hosts: readonly ('a' | 'b')[]
            ) => {
              const { values, sum } = windowOf(hosts);
              if (values.length === 0) {
                expect(Object.values(metric!)).toEqual(Array(11).fill(0));
                return;
              }
              const min = Math.min(...values);
              const max = Math.max(...values);
              expect(metric).toMatchObject({
                n: values.length,
                mean: servable(sum / values.length),
                min: servable(min),
                max: servable(max),
              });
              const percentiles = ['median', '75', '90', '95', '99', '999'].map(
                k => metric![k]!
              );
              expect(metric!['50']).toBe(metric!.median);
              for (let i = 0; i < percentiles.length; i++) {
                expect(percentiles[i]).toBeGreaterThanOrEqual(servable(min));
                expect(percentiles[i]).toBeLessThanOrEqual(servable(max));
                if (i > 0)
                  expect(percentiles[i]).toBeGreaterThanOrEqual(
                    percentiles[i - 1]!
                  );
              }
            };
            for (const host of HOSTS)
              if (served.host[host] !== undefined)
                expectHistogram(served.host[host], [host]);
            const present = HOSTS.filter(
              host => served.host[host] !== undefined
            );
            expectHistogram(served.hostType, present);
            expectHistogram(served.all, present);
          }
        );
      }),
      { numRuns: 40 }
    );
  });
});
