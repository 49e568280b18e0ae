/**
 * Tables of 300,000 rows, as a group with 300,000 metrics gives: laid out without spreading
 * arrays into calls, which overflows the stack.
 */
import { comparisonText } from '../../src/migrate/comparisonText';
import type { Comparison } from '../../src/migrate/compareServers';
import { TOLERANCES } from '../../src/migrate/compareTolerances';
import { reportText } from '../../src/migrate/migrationFiles';
import type { MigrationPlan } from '../../src/migrate/migrationPlan';
import { textTable } from '../../src/migrate/textTable';

const ROWS = 300_000;

describe('textTable', () => {
  it('should lay out 300,000 rows, padded to the widest cell', () => {
    const rows = Array.from({ length: ROWS }, (_, i) => [
      `m${i}`,
      String(i),
      'x',
    ]);
    const lines = textTable(rows, '  ');
    expect(lines).toHaveLength(ROWS);
    expect(lines[0]).toBe('  m0       0       x');
    expect(lines[ROWS - 1]).toBe('  m299999  299999  x');
  });
});

describe('comparisonText', () => {
  it('should print a group of 300,000 keys and name the first twenty that disagree', () => {
    const comparison: Comparison = {
      legacy: 'http://127.0.0.1:8088/api',
      prometheus: 'http://127.0.0.1:9464/metrics',
      tolerances: TOLERANCES,
      groups: [
        {
          group: 'big',
          placement: 'host_type',
          keys: Array.from({ length: ROWS }, (_, i) => ({
            metric: `metric${i}`,
            key: 'count',
            legacy: i,
            prometheus: i + 1,
            agree: false,
          })),
        },
      ],
      disagreements: ROWS,
    };
    const lines = comparisonText(comparison);
    expect(lines).toContain(
      '  metric299999/count  299999  300000      DISAGREE'
    );
    expect(lines.at(-1)).toBe(
      `300000 keys disagree: ${Array.from({ length: 20 }, (_, i) => `big: metric${i}/count`).join(', ')} and 299980 more`
    );
  });
});

describe('reportText', () => {
  it('should list 300,000 mapped keys under their URL, the URL once', () => {
    const url = {
      url: 'http://127.0.0.1:8088/api/metrics/host_type/big',
      file: 'collectd.conf',
      line: 3,
      keys: [],
    };
    const key = { path: 'metrics/*/count', file: 'collectd.conf', line: 4 };
    const plan = {
      poller: { file: 'collectd.conf', urls: [url], intervalS: 10 },
      legacy: 'http://127.0.0.1:8088/api',
      prometheusTargets: [new URL('http://127.0.0.1:9464/metrics')],
      intervalS: 10,
      mappings: Array.from({ length: ROWS }, (_, i) => ({
        url,
        key,
        path: `metrics/m${i}/count`,
        name: `m${i}`,
        field: 'count',
        kind: 'spiral',
        group: 'big',
        rule: `legacy:m${i}:count`,
      })),
      rules: [],
      pitfalls: [],
      unmapped: [],
      notes: [],
    } as unknown as MigrationPlan;
    const lines = reportText(plan).split('\n');
    expect(lines.filter(l => l.includes(url.url))).toEqual([
      `  ${url.url} (300000 keys)`,
    ]);
    expect(lines).toContain(
      '    metrics/m299999/count  -> legacy:m299999:count{host_type="big"}  (exact)'
    );
  });
});
