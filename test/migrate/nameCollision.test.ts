/**
 * Two legacy names that the exporter's sanitising brings together: a counter `a` with
 * `{op: "b"}` (legacy `a.b`, 5) beside a counter `a_b` (7). `migrate` writes a rule per legacy
 * name, each reading its own series, and names the collision; a real Prometheus evaluates each
 * rule to its own legacy value; `compare` compares each name with its own series.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  describeWithClients,
  freePort,
  INSTALL_HINT,
  requireCommand,
  start,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from '../realClients/support';
import { query as promQuery } from '../support/promql';
import { runBuilt } from './liveDemo';
import {
  startShapedServer,
  writePoller,
  type ShapedServer,
} from './serverShapes';

describeWithClients('prometheus')('a.b beside a_b', () => {
  let shaped: ShapedServer | undefined;
  let prometheus: Tracked | undefined;
  const dir = temporaryDirectory('collision-');

  beforeAll(async () => {
    shaped = await startShapedServer(['h'], meter => {
      meter.createCounter('a').add(5, { op: 'b', host_type: 'h' });
      meter.createCounter('a_b').add(7, { host_type: 'h' });
    });
  });

  afterAll(async () => {
    await stop(prometheus);
    await shaped?.close();
    dir.remove();
  });

  it('should write a rule per legacy name that Prometheus evaluates to its own legacy value, and name the collision', async () => {
    const out = join(dir.path, 'out');
    const file = writePoller(
      dir.path,
      shaped!.legacy,
      ['host_type/h'],
      ['count']
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
    expect(report).toContain(
      '[name-collision] a.b and a_b would share the rule legacy:a_b:<key>: a.b is legacy:a_dot_b:<key>, a_b is legacy:a_b:<key>, each reading its own series.'
    );
    const rules = parse(readFileSync(join(out, 'rules.yml'), 'utf8')) as {
      groups: { rules: { record: string; expr: string }[] }[];
    };
    const records = rules.groups[0]!.rules.map(r => r.record).sort();
    expect(records).toEqual(['legacy:a_b:count', 'legacy:a_dot_b:count']);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    prometheus = start(requireCommand('prometheus', INSTALL_HINT.prometheus), [
      `--config.file=${join(out, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(out, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ]);
    const query = async (expression: string): Promise<number | undefined> => {
      const value = (await promQuery(url, expression))[0]?.value[1];
      return value === undefined ? undefined : Number(value);
    };
    const evaluated = await waitUntil(
      'both rules evaluated',
      40_000,
      async () => {
        const dotted = await query('legacy:a_dot_b:count');
        const plain = await query('legacy:a_b:count');
        return dotted !== undefined && plain !== undefined
          ? { dotted, plain }
          : undefined;
      },
      () => prometheus!.output()
    );
    expect(evaluated).toEqual({ dotted: 5, plain: 7 });
  }, 60_000);

  it('should compare each legacy name with its own series', async () => {
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
    expect(result.stdout).toMatch(/^ {2}a\.b\/count +5 +5 +agree$/m);
    expect(result.stdout).toMatch(/^ {2}a_b\/count +7 +7 +agree$/m);
  }, 30_000);
});
