import { createRig } from '../helpers';
import {
  decodeCollection,
  WireError,
} from '../../src/cluster/decodeCollection';
import { encodeCollection } from '../../src/reader/clusterWire';

describe('encodeCollection', () => {
  it('should round-trip a real collection of every kind through decodeCollection', async () => {
    const rig = createRig();
    try {
      const meter = rig.provider.getMeter('app', '1.2.3');
      meter.createCounter('sent').add(3, { host_type: 'a' });
      meter.createUpDownCounter('sessions').add(-2, { host_type: 'a' });
      meter.createGauge('load').record(Number.NaN, { host_type: 'a' });
      const latency = meter.createHistogram('latency');
      for (const value of [0, 5, 1e9])
        latency.record(value, { host_type: 'b' });
      rig.provider.getMeter('left-out').createCounter('x').add(1);
      const { resourceMetrics } = await rig.reader.collect();
      const { body, refused } = encodeCollection(
        resourceMetrics,
        name => name !== 'left-out'
      );
      expect(refused).toEqual([]);
      // Each distinct attribute set once, whatever number of instruments share it.
      expect(JSON.parse(body).a).toEqual([
        { host_type: 'a' },
        { host_type: 'b' },
      ]);
      const decoded = decodeCollection(body);
      expect(decoded.scopeMetrics).toHaveLength(1);
      const [scope] = decoded.scopeMetrics;
      expect(scope!.scope).toEqual({ name: 'app', version: '1.2.3' });
      const byName = new Map(scope!.metrics.map(m => [m.descriptor.name, m]));
      expect(byName.get('sent')!.dataPoints[0]).toMatchObject({
        attributes: { host_type: 'a' },
        value: 3,
      });
      expect(byName.get('sessions')!.dataPoints[0]!.value).toBe(-2);
      // JSON has no NaN: it travels as null and reads back as NaN.
      expect(byName.get('load')!.dataPoints[0]!.value).toBeNaN();
      expect(byName.get('latency')!.dataPoints[0]!.value).toMatchObject({
        count: 3,
        sum: 1e9 + 5,
        min: 0,
        max: 1e9,
        zeroCount: 1,
      });
    } finally {
      await rig.close();
    }
  });
});

describe('decodeCollection', () => {
  const point = (value: unknown): string =>
    JSON.stringify({
      v: 2,
      a: [{ host_type: 'a' }],
      s: [['app', null, null, [['sent', 's', 1, [[0, value]]]]]],
    });
  it.each([
    ['{"v":1,"s":[]}', 'body.v: expected 2'],
    ['[]', 'body.v: expected 2'],
    ['{"v":2,"a":[],"s":{}}', 'body.s: expected an array'],
    ['{"v":2,"s":[]}', 'body.a: expected an array'],
    [
      '{"v":2,"a":[],"s":[["",null,null,[]]]}',
      'meter 0 name: expected a non-empty string',
    ],
    [point('7'), 'meter 0 metric 0 point 0 value: expected a number or null'],
    [
      JSON.stringify({
        v: 2,
        a: [],
        s: [['app', null, null, [['sent', 'x', 1, []]]]],
      }),
      'meter 0 metric 0 kind: expected one of s, u, g, l, h',
    ],
    [
      JSON.stringify({
        v: 2,
        a: [{ a: { b: 1 } }],
        s: [['app', null, null, [['sent', 's', 1, [[0, 1]]]]]],
      }),
      'body.a 0.a: expected a string, finite number, boolean or an array',
    ],
    [
      JSON.stringify({
        v: 2,
        a: [{ host_type: 'a' }],
        s: [['app', null, null, [['sent', 's', 1, [[1, 1]]]]]],
      }),
      'meter 0 metric 0 point 0 attributes: expected an index into body.a, below 1',
    ],
    [
      JSON.stringify({
        v: 2,
        a: [],
        s: [['app', null, null, [['sent', 's', 1, [[0]]]]]],
      }),
      'meter 0 metric 0 point 0: expected an array of 2 items',
    ],
    [
      JSON.stringify({
        v: 2,
        a: [{}],
        s: [
          [
            'app',
            null,
            null,
            [['h', 'h', 0, [[0, [5, 1, 1, 1, 0, 0, 0, [1], 0, []]]]]],
          ],
        ],
      }),
      'meter 0 metric 0 point 0 value count: expected the sum of the bucket counts',
    ],
    [
      JSON.stringify({
        v: 2,
        a: [{}],
        s: [
          [
            'app',
            null,
            null,
            [['h', 'h', 0, [[0, [1, 1, 1, 1, 99, 0, 0, [1], 0, []]]]]],
          ],
        ],
      }),
      'meter 0 metric 0 point 0 value scale: expected an integer from -10 to 20',
    ],
  ])('should refuse %s, naming the field', (body, message) => {
    const [where, expected] = message.split(': expected ');
    expect(() => decodeCollection(body)).toThrow(
      new WireError(where!, expected!)
    );
  });

  it('should refuse text that is not JSON', () => {
    expect(() => decodeCollection('not json')).toThrow(SyntaxError);
  });
});
