import type { Meter } from '@opentelemetry/api';
import type { Variant } from '../../src';
import { VARIANTS } from '../../src/attributes';
import { jsonSerializer } from '../../src/snapshot/jsonSerializer';
import { xmlSerializer } from '../../src/snapshot/xmlSerializer';
import type { Snapshot } from '../../src/snapshot/Snapshot';
import { createRig, type Rig } from '../helpers';

const HOST_TYPES = ['localhost', 'test type'];
const SERIALIZERS = [jsonSerializer, xmlSerializer];

/** The same recordings, in the same order, whichever rig makes them. */
function recordFirst(meter: Meter): void {
  meter.createCounter('xmppMessageSent').add(3, { host_type: 'localhost' });
  meter
    .createCounter('xmppMessageSent')
    .add(2, { host_type: 'test type', host: 'a.example' });
  meter.createUpDownCounter('sessionCount').add(4, { host_type: 'localhost' });
  meter.createGauge('clusterSize').record(2);
  meter.createGauge('queueLength').record(7.5, { host_type: 'localhost' });
  const histogram = meter.createHistogram('authTime');
  for (const value of [10, 20, 30])
    histogram.record(value, { host_type: 'localhost' });
  meter
    .createHistogram('backends.auth')
    .record(5, { host_type: 'test type', operation: 'authorize' });
}

/** What the tick after the snapshot brings: new values, new host types, hosts and names. */
function recordSecond(meter: Meter): void {
  meter.createCounter('xmppMessageSent').add(5, { host_type: 'localhost' });
  meter.createCounter('xmppMessageSent').add(1, { host_type: 'new type' });
  meter
    .createCounter('xmppMessageSent')
    .add(1, { host_type: 'test type', host: 'b.example' });
  meter.createUpDownCounter('sessionCount').add(-1, { host_type: 'localhost' });
  meter.createGauge('clusterSize').record(3);
  meter.createGauge('queueLength').record(NaN, { host_type: 'localhost' });
  meter.createHistogram('authTime').record(1000, { host_type: 'localhost' });
  meter.createCounter('newGlobal').add(1);
  meter.createCounter('newPerHostType').add(1, { host_type: 'localhost' });
}

/** Every endpoint of one variant, for the names the first recordings and the second make. */
function paths(variant: Variant): string[][] {
  const word = variant;
  const groups = [
    ...HOST_TYPES,
    'test_type',
    'new type',
    'a.example',
    'b.example',
  ];
  const names = [
    'xmppMessageSent',
    'sessionCount',
    'clusterSize',
    'queueLength',
    'authTime',
    'backends.auth.authorize',
    'newGlobal',
    'newPerHostType',
    'unknown',
  ];
  const result: string[][] = [
    ['metrics'],
    ['metrics', 'all'],
    ['metrics', 'global'],
  ];
  for (const name of names) {
    result.push(['metrics', 'all', name], ['metrics', 'global', name]);
  }
  for (const group of groups) {
    result.push(['metrics', word, group]);
    for (const name of names) result.push(['metrics', word, group, name]);
  }
  return result;
}

/** Every answer of a snapshot: status and body, per variant, format and path. */
function answers(snapshot: Snapshot): Map<string, string> {
  const result = new Map<string, string>();
  for (const variant of VARIANTS) {
    for (const serializer of SERIALIZERS) {
      for (const path of paths(variant)) {
        const response = snapshot.respond(variant, path, serializer);
        result.set(
          `${variant} ${serializer.contentType} /${path.join('/')}`,
          `${response.status} ${response.body.toString()}`
        );
      }
    }
  }
  return result;
}

let rigs: Rig[] = [];
afterEach(async () => {
  await Promise.all(rigs.map(rig => rig.close()));
  rigs = [];
});

function rig(): Rig {
  const created = createRig({ hostTypes: HOST_TYPES });
  rigs.push(created);
  return created;
}

describe('Snapshot', () => {
  describe('respond', () => {
    it('should answer after later ticks exactly as it did when it was published, on every endpoint of both variants', async () => {
      // README: the reader publishes an immutable snapshot after each tick.
      const live = rig();
      const twin = rig();
      for (const each of [live, twin]) {
        recordFirst(each.provider.getMeter('m'));
        await each.flush();
        await each.advance(1_000);
      }
      const before = live.reader.snapshot;
      const expected = answers(twin.reader.snapshot);

      recordSecond(live.provider.getMeter('m'));
      await live.advance(1_000);
      // The window moves on too: the first slots leave it.
      await live.advance(60_000);
      recordSecond(live.provider.getMeter('m'));
      await live.advance(1_000);

      expect(live.reader.snapshot.generation).toBe(before.generation + 3);
      expect(answers(before)).toEqual(expected);
      // The newer snapshot does see the change, so the comparison above can fail.
      const after = answers(live.reader.snapshot);
      const changed = [...after].filter(
        ([key, body]) => expected.get(key) !== body
      );
      expect(changed.length).toBeGreaterThan(100);
    });

    it('should keep answering as published when it is asked for the first time only after the tick', async () => {
      const live = rig();
      const counter = live.provider.getMeter('m').createCounter('c');
      counter.add(1, { host_type: 'localhost' });
      await live.flush();
      const before = live.reader.snapshot;
      counter.add(1, { host_type: 'localhost' });
      counter.add(1, { host_type: 'later' });
      await live.flush();
      const body = (path: string[], snapshot: Snapshot) =>
        JSON.parse(
          snapshot.respond('host_type', path, jsonSerializer).body.toString()
        );
      expect(body(['metrics', 'all', 'c'], before)).toEqual({
        metric: { count: 1, one: 1 },
      });
      expect(body(['metrics'], before).host_types).toEqual(HOST_TYPES);
      expect(body(['metrics', 'all', 'c'], live.reader.snapshot)).toEqual({
        metric: { count: 3, one: 3 },
      });
      expect(body(['metrics'], live.reader.snapshot).host_types).toEqual([
        ...HOST_TYPES,
        'later',
      ]);
    });
  });
});
