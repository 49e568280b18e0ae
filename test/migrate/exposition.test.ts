import { parseExposition } from './exposition';

describe('parseExposition', () => {
  it('should group a histogram family and read escaped label values', () => {
    const families = parseExposition(
      [
        '# HELP backends_auth Authentication backend latency',
        '# TYPE backends_auth histogram',
        'backends_auth_count{host_type="test type",operation="authorize"} 3',
        'backends_auth_sum{host_type="test type",operation="authorize"} 612',
        'backends_auth_bucket{host_type="test type",operation="authorize",le="+Inf"} 3',
        '# TYPE xmppMessageSent_total counter',
        'xmppMessageSent_total{host_type="a \\"quoted\\" \\\\ name\\n"} 7',
        'untyped_metric 1.5',
        '',
      ].join('\n')
    );
    expect([...families.keys()]).toEqual([
      'backends_auth',
      'xmppMessageSent_total',
      'untyped_metric',
    ]);
    const histogram = families.get('backends_auth')!;
    expect(histogram.samples.map(s => [s.name, s.value])).toEqual([
      ['backends_auth_count', 3],
      ['backends_auth_sum', 612],
      ['backends_auth_bucket', 3],
    ]);
    expect(histogram.samples[2]!.labels).toEqual({
      host_type: 'test type',
      operation: 'authorize',
      le: '+Inf',
    });
    expect(
      families.get('xmppMessageSent_total')!.samples[0]!.labels.host_type
    ).toBe('a "quoted" \\ name\n');
    expect(families.get('untyped_metric')).toEqual({
      name: 'untyped_metric',
      type: 'untyped',
      samples: [{ name: 'untyped_metric', labels: {}, value: 1.5 }],
    });
  });

  it('should name the line it cannot read', () => {
    expect(() => parseExposition('ok 1\nnot a sample line at all {\n')).toThrow(
      'line 2: cannot read "not a sample line at all {"'
    );
  });
});
