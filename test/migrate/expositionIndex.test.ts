import {
  ExpositionIndex,
  labelSetKey,
  type ExpositionRead,
} from '../../src/migrate/expositionIndex';
import type { SeriesPlacement as Placement } from '../../src/migrate/legacyUrl';

/** Two host types, colliding attribute names, a histogram past its top bucket and a global. */
const EXPOSITION = [
  '# HELP backends_auth Authentication backend latency',
  '# TYPE backends_auth histogram',
  'backends_auth_count{host_type="test type",operation="authorize",otel_scope_name="a"} 3',
  'backends_auth_sum{host_type="test type",operation="authorize",otel_scope_name="a"} 61200',
  'backends_auth_bucket{host_type="test type",operation="authorize",otel_scope_name="a",le="10000"} 1',
  'backends_auth_bucket{host_type="test type",operation="authorize",otel_scope_name="a",le="+Inf"} 3',
  '# TYPE xmppMessageSent_total counter',
  'xmppMessageSent_total{host_type="a \\"quoted\\" \\\\ name\\n",otel_scope_name="a"} 7',
  'xmppMessageSent_total{host_type="a \\"quoted\\" \\\\ name\\n",otel_scope_name="b"} 5',
  'xmppMessageSent_total{host_type="test type",otel_scope_name="a"} 2',
  '# TYPE sessions gauge',
  'sessions 41',
  '',
].join('\n');

const TEST_TYPE: Placement = { label: 'host_type', value: 'test type' };
const QUOTED: Placement = {
  label: 'host_type',
  value: 'a "quoted" \\ name\n',
};

/** Every value the tests look at, in one read. */
function valuesOf(
  index: ExpositionIndex,
  read: ExpositionRead
): Record<string, number> {
  const auth = labelSetKey({ operation: 'authorize' });
  return {
    count: index.value(read, 'backends_auth_count', auth, '', TEST_TYPE),
    sum: index.value(read, 'backends_auth_sum', auth, '', TEST_TYPE),
    top: index.value(read, 'backends_auth_bucket', auth, '10000', TEST_TYPE),
    inf: index.value(read, 'backends_auth_bucket', auth, '+Inf', TEST_TYPE),
    quoted: index.value(read, 'xmppMessageSent_total', '', '', QUOTED),
    sent: index.value(read, 'xmppMessageSent_total', '', '', TEST_TYPE),
    sessions: index.value(read, 'sessions', '', '', { label: 'global' }),
  };
}

const EXPECTED = {
  count: 3,
  sum: 61200,
  top: 1,
  inf: 3,
  quoted: 12,
  sent: 2,
  sessions: 41,
};

describe('ExpositionIndex', () => {
  describe('index', () => {
    it('should sum the samples of each series, placement and bucket into one slot', () => {
      const index = new ExpositionIndex('host_type');
      expect(valuesOf(index, index.index(EXPOSITION, 1))).toEqual(EXPECTED);
      expect([...index.families.keys()]).toEqual([
        'backends_auth',
        'xmppMessageSent_total',
        'sessions',
      ]);
      expect([...index.families.get('backends_auth')!.les.values()]).toEqual([
        '10000',
        '+Inf',
      ]);
    });

    it('should read again, with the values of the new read only', () => {
      const index = new ExpositionIndex('host_type');
      const first = index.index(EXPOSITION, 1);
      const second = index.index(EXPOSITION.replace(' 41\n', ' 43\n'), 2);
      expect(valuesOf(index, first)).toEqual(EXPECTED);
      expect(valuesOf(index, second)).toEqual({ ...EXPECTED, sessions: 43 });
      expect(index.slotCount).toBe(7);
    });

    it('should name the line it cannot read', () => {
      const index = new ExpositionIndex('host_type');
      expect(() =>
        index.index(`${EXPOSITION}broken{host_type="x" 1\n`, 1)
      ).toThrow('line 13: cannot read "broken{host_type=\\"x\\" 1"');
      expect(() => index.index('sessions NotANumber\n', 1)).toThrow(
        'line 1: cannot read "sessions NotANumber"'
      );
    });
  });

  describe('begin', () => {
    it('should give the same read whatever the pieces the text comes in', () => {
      for (let at = 0; at <= EXPOSITION.length; at++) {
        const index = new ExpositionIndex('host_type');
        const parse = index.begin(1);
        parse.write(EXPOSITION.slice(0, at));
        parse.write('');
        parse.write(EXPOSITION.slice(at));
        expect(valuesOf(index, parse.end())).toEqual(EXPECTED);
      }
      const index = new ExpositionIndex('host_type');
      const parse = index.begin(1);
      for (const character of EXPOSITION) parse.write(character);
      expect(valuesOf(index, parse.end())).toEqual(EXPECTED);
    });

    it('should read a last line without a newline, and name a broken one across pieces', () => {
      const index = new ExpositionIndex('host_type');
      const parse = index.begin(1);
      parse.write(EXPOSITION.replace(/\n$/, ''));
      expect(valuesOf(index, parse.end())).toEqual(EXPECTED);
      const later = index.begin(3);
      later.write('sessions 1\nsess');
      expect(() => later.write('ions\n')).toThrow(
        'line 2: cannot read "sessions"'
      );
    });
  });
});
