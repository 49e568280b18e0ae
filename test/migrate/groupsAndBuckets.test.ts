/**
 * `compare` and `migrate` on servers shaped as operators run them: a histogram with values above
 * the SDK's highest default boundary (and the same with advice boundaries that cover them), and a
 * host type named `global` beside the global metrics.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDirectory } from '../realClients/support';
import { runBuilt } from './liveDemo';
import {
  startShapedServer,
  writePoller,
  type ShapedServer,
} from './serverShapes';

const LATENCIES = [12_000, 13_000, 14_000, 14_500, 15_000];

describe.each([
  ['the default boundaries', undefined, 1],
  [
    'advice boundaries that cover the values',
    [0, 5_000, 10_000, 12_500, 15_000, 20_000],
    0,
  ],
] as const)(
  'a histogram with values above 10,000 and %s',
  (_name, boundaries, code) => {
    let shaped: ShapedServer | undefined;
    const dir = temporaryDirectory('buckets-');

    beforeAll(async () => {
      shaped = await startShapedServer(['h'], meter => {
        const latency = meter.createHistogram('latency', {
          unit: 'us',
          ...(boundaries === undefined
            ? {}
            : { advice: { explicitBucketBoundaries: [...boundaries] } }),
        });
        for (const value of LATENCIES)
          latency.record(value, { host_type: 'h' });
      });
    });

    afterAll(async () => {
      await shaped?.close();
      dir.remove();
    });

    it(`should make compare exit ${code}${code === 1 ? ', naming the percentiles the buckets cannot express' : ''}`, async () => {
      const result = await runBuilt([
        'compare',
        '--legacy',
        shaped!.legacy,
        '--prometheus',
        shaped!.prometheus,
      ]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code,
        stderr: '',
      });
      const row = result.stdout
        .split('\n')
        .find(line => line.startsWith('  latency/95 '))!;
      if (code === 1) {
        expect(row).toMatch(
          /^ {2}latency\/95 +\d+ +10000\.\.Infinity +DISAGREE \(the histogram cannot express this percentile: /
        );
        expect(result.stdout).toContain('h: latency/95');
      } else expect(row).toMatch(/^ {2}latency\/95 +\d+ +12500\.\.\S+ +agree$/);
    }, 30_000);

    it(`should ${code === 1 ? '' : 'not '}tag the histogram in report.txt`, async () => {
      const out = join(dir.path, 'out');
      const file = writePoller(
        dir.path,
        shaped!.legacy,
        ['host_type/h'],
        ['95']
      );
      const result = await runBuilt([
        'migrate',
        file,
        '--legacy',
        shaped!.legacy,
        '--prometheus',
        shaped!.prometheus,
        '--out',
        out,
      ]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      const report = readFileSync(join(out, 'report.txt'), 'utf8');
      if (code === 1) {
        expect(report).toContain(
          '[histogram-buckets] latency (instrument "latency"): its Prometheus buckets cannot express the legacy percentiles: '
        );
        expect(report).toContain('is above the highest bucket boundary 10000');
        expect(report).toContain(
          'meter.createHistogram("latency", { advice: { explicitBucketBoundaries: [0, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000] } })'
        );
      } else expect(report).not.toContain('[histogram-buckets]');
    }, 30_000);
  }
);

describe('a host type named global', () => {
  let shaped: ShapedServer | undefined;

  beforeAll(async () => {
    shaped = await startShapedServer(['global', 'other'], meter => {
      meter.createCounter('perHostType').add(3, { host_type: 'global' });
      meter.createCounter('perHostType').add(8, { host_type: 'other' });
      meter.createCounter('nodeWide').add(4);
    });
  });

  afterAll(async () => {
    await shaped?.close();
  });

  it('should compare the host type and the global metrics, each once', async () => {
    const result = await runBuilt([
      'compare',
      '--legacy',
      shaped!.legacy,
      '--prometheus',
      shaped!.prometheus,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    const sections = result.stdout.split('\n\n').slice(1);
    const section = (title: string): string =>
      sections.find(s => s.startsWith(`${title}:`)) ?? '';
    expect(section('host type "global"')).toMatch(
      /^ {2}perHostType\/count +3 +3 +agree$/m
    );
    expect(section('host type "other"')).toMatch(
      /^ {2}perHostType\/count +8 +8 +agree$/m
    );
    expect(section('global metrics')).toMatch(
      /^ {2}nodeWide\/count +4 +4 +agree$/m
    );
    expect(section('global metrics')).not.toContain('perHostType');
    expect(result.stdout.match(/^global metrics:$/gm)).toHaveLength(1);
  }, 30_000);
});
