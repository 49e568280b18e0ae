import type { Attributes } from '@opentelemetry/api';
import { createRig, read, type Rig } from '../helpers';

/*
 * The reader finds the series of a data point by its attributes object when the application
 * keeps one per set, and by the set's one string attribute (or its key) otherwise. Whichever way
 * an application makes its attributes objects, the same recordings give the same series and
 * the same values.
 */

/** How a recording gets its attributes object. */
type Objects = 'kept' | 'fresh' | 'renewed';

/** Every shape of set the lookups tell apart. */
const SETS: readonly Attributes[] = [
  { host_type: 'alpha' },
  { host_type: 'beta' },
  { host: 'h1.example' },
  {},
  { host_type: 'alpha', operation: 'login' },
  { host_type: 'beta', code: 7 },
  { tier: 3 },
];

/** A set whose object also lists a key of its prototype (`for…in` sees it, `Object.keys` not). */
function withInheritedKey(): Attributes {
  const attributes = Object.create({ inherited: 'x' }) as Attributes;
  attributes.host_type = 'gamma';
  return attributes;
}

async function recordTicks(objects: Objects, ticks: number): Promise<Rig> {
  const rig = createRig({ hostTypes: ['alpha', 'beta', 'gamma'] });
  const meter = rig.provider.getMeter('app');
  const spiral = meter.createCounter('stanzasSent');
  const counter = meter.createUpDownCounter('sessionCount');
  const gauge = meter.createGauge('queueLength');
  const histogram = meter.createHistogram('authTime');
  const kept = [...SETS.map(set => ({ ...set })), withInheritedKey()];
  for (let tick = 0; tick < ticks; tick++) {
    kept.forEach((set, i) => {
      // `renewed`: new objects on the second tick only, the kept ones before and after.
      const fresh =
        objects === 'fresh' || (objects === 'renewed' && tick === 1);
      const attributes = (): Attributes =>
        fresh ? (i === SETS.length ? withInheritedKey() : { ...SETS[i] }) : set;
      spiral.add(i + 1, attributes());
      counter.add(10 * (i + 1), attributes());
      gauge.record(100 + i + tick, attributes());
      histogram.record(i + 0.5, attributes());
    });
    await rig.advance(1000);
  }
  return rig;
}

const PATHS = [
  'metrics',
  'metrics/host_type/alpha',
  'metrics/host_type/beta',
  'metrics/host_type/gamma',
  'metrics/global',
  'metrics/all',
];

describe('attributes objects kept, made for each recording, or renewed', () => {
  const rigs: Rig[] = [];
  afterAll(async () => {
    await Promise.all(rigs.map(rig => rig.close()));
  });

  it.each<Objects>(['fresh', 'renewed'])(
    'serves with %s objects exactly what kept objects give',
    async objects => {
      const kept = await recordTicks('kept', 3);
      const other = await recordTicks(objects, 3);
      rigs.push(kept, other);
      expect(other.reader.seriesCount).toBe(kept.reader.seriesCount);
      for (const path of PATHS)
        expect(read(other.reader, path)).toEqual(read(kept.reader, path));
      for (const path of ['metrics', 'metrics/host/h1.example'])
        expect(read(other.reader, path, 'host')).toEqual(
          read(kept.reader, path, 'host')
        );
    }
  );

  it('adds every recording of a set made afresh each time to one series', async () => {
    const rig = await recordTicks('fresh', 3);
    rigs.push(rig);
    const alpha = read(rig.reader, 'metrics/host_type/alpha').json.metrics;
    // Set 0 ({host_type: 'alpha'}): 1 a tick; set 4 adds 5 a tick under its own legacy name.
    expect(alpha.stanzasSent).toEqual({ count: 3, one: 3 });
    expect(alpha['stanzasSent.login']).toEqual({ count: 15, one: 15 });
    expect(alpha.sessionCount).toMatchObject({ value: 30 });
    expect(alpha.queueLength).toMatchObject({ value: 102 });
    expect(alpha.authTime.n).toBe(3);
    const gamma = read(rig.reader, 'metrics/host_type/gamma').json.metrics;
    expect(gamma.stanzasSent).toEqual({ count: 24, one: 24 });
    const host = read(rig.reader, 'metrics/host/h1.example', 'host').json
      .metrics;
    expect(host.stanzasSent).toEqual({ count: 9, one: 9 });
  });

  it('takes a set with a key of its prototype for the same set without it', async () => {
    const rig = createRig({ hostTypes: ['gamma'] });
    rigs.push(rig);
    const gauge = rig.provider.getMeter('app').createGauge('queueLength');
    const value = () =>
      read(rig.reader, 'metrics/host_type/gamma').json.metrics.queueLength;
    // One set as the SDK hashes it (its own keys): one source of last values, never two summed.
    gauge.record(5, { host_type: 'gamma' });
    await rig.advance(1000);
    gauge.record(7, withInheritedKey());
    await rig.advance(1000);
    expect(value()).toMatchObject({ value: 7 });
    gauge.record(9, { host_type: 'gamma' });
    await rig.advance(1000);
    expect(value()).toMatchObject({ value: 9 });
    expect(rig.reader.seriesCount).toBe(1);
  });

  it('finds a kept object by every instrument of every meter, including one that meets it later', async () => {
    const rig = createRig({ hostTypes: ['alpha', 'beta'] });
    rigs.push(rig);
    const alpha = { host_type: 'alpha' };
    const alphaAgain = { host_type: 'alpha' };
    const beta = { host_type: 'beta' };
    const server = rig.provider.getMeter('server').createCounter('stanzasSent');
    const other = rig.provider.getMeter('other');
    const errors = other.createCounter('errors');
    for (let tick = 0; tick < 3; tick++) {
      server.add(1, alpha);
      server.add(2, beta);
      errors.add(10, alphaAgain);
      // An instrument first met in the second tick, with objects the others made known.
      if (tick > 0) other.createCounter('retries').add(100, alpha);
      await rig.advance(1000);
    }
    const metrics = (hostType: string) =>
      read(rig.reader, `metrics/host_type/${hostType}`).json.metrics;
    expect(metrics('alpha').stanzasSent).toEqual({ count: 3, one: 3 });
    expect(metrics('alpha').errors).toEqual({ count: 30, one: 30 });
    expect(metrics('alpha').retries).toEqual({ count: 200, one: 200 });
    expect(metrics('beta').stanzasSent).toEqual({ count: 6, one: 6 });
    expect(metrics('beta').retries).toEqual({ count: 0, one: 0 });
  });
});
