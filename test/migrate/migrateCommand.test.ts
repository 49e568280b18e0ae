/**
 * `legacy-metrics-api migrate`, run as a person runs it (the built command, a child process), on
 * realistic collectd files against the live demo; then promtool, and a real Prometheus started on
 * each generated configuration, must give what the legacy API serves.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { DEMO_HOST_TYPES } from '../../src/demo/simulatedMessagingServer';
import {
  startLegacyMetricsServer,
  type LegacyMetricsServer,
} from '../../src/http/startLegacyMetricsServer';
import { recordingRuleName } from '../../src/migrate/ruleNames';
import {
  freePort,
  INSTALL_HINT,
  bucketIndex,
  describeWithClients,
  requireCommand,
  start,
  stop,
  temporaryDirectory,
  waitUntil,
  type Tracked,
} from '../realClients/support';
import { query } from '../support/promql';
import { runBuilt, startLiveDemo, type LiveDemo } from './liveDemo';

const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(__dirname, 'fixtures');

// Module names as long as some real ones: "metrics/<name>/count" is 116 characters for the first
// (collectd truncates it) and 122 for the second (collectd 5.12 crashes on it).
const TRUNCATED_NAME = 'modGlobalDistribBouncedMessages'.padEnd(102, 'X');
const CRASHING_NAME = 'modGlobalDistribRedirectedStanzas'.padEnd(108, 'X');

interface Case {
  readonly file: string;
  /** The variant of the legacy API the file polls. @default 'host_type' */
  readonly variant?: 'host';
  /** Tags of report.txt that must appear: the pitfalls planted in the file. */
  readonly tags: readonly string[];
  /** Rules that must be generated, with the host type label they must carry ('' for none). */
  readonly rules: readonly [string, string][];
}

const CASES: readonly Case[] = [
  {
    file: join(ROOT, 'examples', 'collectd.conf'),
    // metrics/*/count also reads the long names, which the legacy API lists for every host type.
    tags: ['long-key'],
    rules: [
      ['legacy:xmppMessageSent:count', 'localhost'],
      ['legacy:xmppMessageSent:one', 'localhost'],
      ['legacy:sessionCount:value', 'localhost'],
    ],
  },
  {
    file: join(FIXTURES, 'two-host-types.conf'),
    tags: ['absolute-count', 'max-read-interval', 'value-wildcard'],
    rules: [
      ['legacy:xmppMessageSent:count', 'localhost'],
      ['legacy:xmppMessageSent:count', 'test type'],
      ['legacy:xmppMessageSent:one', 'test type'],
      ['legacy:sessionCount:value', 'test type'],
    ],
  },
  {
    file: join(FIXTURES, 'histograms-and-long-keys.conf'),
    tags: ['long-key', 'no-prometheus-equivalent', 'host-type-spelling'],
    rules: [
      ['legacy:nodeSessionCount:value', ''],
      ['legacy:data_xmpp_sent_xml_stanza_size:n', ''],
      ['legacy:data_xmpp_sent_xml_stanza_size:mean', ''],
      ['legacy:data_xmpp_sent_xml_stanza_size:95', ''],
      ['legacy:backends_auth_authorize:n', 'test type'],
      ['legacy:backends_auth_authorize:median', 'test type'],
      [recordingRuleName(TRUNCATED_NAME, 'count'), 'test type'],
    ],
  },
  {
    file: join(FIXTURES, 'original-documentation.conf'),
    tags: [
      'absolute-count',
      'absolute-type',
      'unknown-key',
      'unknown-host-type',
    ],
    rules: [
      ['legacy:xmppMessageSent:count', 'localhost'],
      ['legacy:xmppMessageSent:one', 'localhost'],
      ['legacy:sessionCount:value', 'localhost'],
    ],
  },
  {
    file: join(FIXTURES, 'host-variant.conf'),
    variant: 'host',
    tags: ['host-type-spelling'],
    rules: [
      ['legacy:xmppMessageSent:count', 'localhost'],
      ['legacy:xmppMessageSent:one', 'localhost'],
      ['legacy:backends_auth_authorize:n', 'localhost'],
      ['legacy:sessionCount:value', 'test type'],
    ],
  },
];

/** The first recording rule in the rules.yml generated for `file`. */
let firstRule: (file: string) => string;

type LegacyMap = Record<string, Record<string, number>>;

describeWithClients('prometheus', 'promtool')(
  'legacy-metrics-api migrate against the live demo',
  () => {
    let demo: LiveDemo | undefined;
    // The same reader served in the older host variant, for the pollers of /host/:host.
    let hostServer: LegacyMetricsServer | undefined;
    let promtool = 'promtool';
    const dir = temporaryDirectory('migrate-');
    const outputs = new Map<
      string,
      { code: number | null; stdout: string; stderr: string; dir: string }
    >();
    const servers = new Map<string, { process: Tracked; url: string }>();

    async function legacyMap(base: string, path: string): Promise<LegacyMap> {
      const response = await fetch(`${base}/metrics/${path}`);
      return ((await response.json()) as { metrics: LegacyMap }).metrics;
    }

    firstRule = file => {
      const rules = parse(
        readFileSync(join(outputs.get(file)!.dir, 'rules.yml'), 'utf8')
      ) as { groups: { rules: { record: string }[] }[] };
      return rules.groups[0]!.rules[0]!.record;
    };

    beforeAll(async () => {
      const prometheus = requireCommand('prometheus', INSTALL_HINT.prometheus);
      promtool = requireCommand('promtool', INSTALL_HINT.prometheus);
      demo = await startLiveDemo({ hostTypes: DEMO_HOST_TYPES });
      const meter = demo.telemetry.meterProvider.getMeter('messaging-server');
      meter.createCounter(TRUNCATED_NAME).add(3, { host_type: 'test type' });
      meter.createCounter(CRASHING_NAME).add(4, { host_type: 'test type' });
      // Let the traffic record a bit of everything, histograms included, then stop it: from the
      // first scrape and rule evaluation on, both sides hold still. Stopped this early, the window
      // keys are compared before the demo is 60 s old even on a loaded machine (about 20 s here).
      await demo.recorded();
      await demo.pause();
      const paused = Date.now() / 1000;
      hostServer = await startLegacyMetricsServer(demo.telemetry.legacyReader, {
        port: 0,
        variant: 'host',
      });

      for (const { file, variant } of CASES) {
        const out = join(dir.path, `out-${outputs.size}`);
        const result = await runBuilt([
          'migrate',
          file,
          '--server',
          variant === 'host' ? `${hostServer.url}/api` : demo.legacy,
          '--prometheus',
          demo.prometheus,
          '--out',
          out,
        ]);
        outputs.set(file, { ...result, dir: out });
        if (result.code !== 0) continue;
        const port = await freePort();
        servers.set(file, {
          url: `http://127.0.0.1:${port}`,
          process: start(prometheus, [
            `--config.file=${join(out, 'prometheus.yml')}`,
            `--storage.tsdb.path=${join(out, 'data')}`,
            `--web.listen-address=127.0.0.1:${port}`,
            '--log.level=warn',
          ]),
        });
      }
      // Targets are applied on a 5 s tick: the first scrape comes 5–6 s after start.
      for (const [file, server] of servers) {
        await waitUntil(
          `a scrape by the Prometheus of ${file}`,
          30_000,
          async () => {
            if (server.process.exited()) throw new Error('prometheus exited');
            const up = await query(server.url, 'up');
            return up.length === 1 && up[0]!.value[1] === '1'
              ? true
              : undefined;
          },
          () => server.process.output()
        );
      }
      for (const [file, server] of servers) {
        const scraped = await waitUntil(
          `a scrape after the pause (${file})`,
          30_000,
          async () => {
            const up = await query(server.url, 'timestamp(up)');
            const at = Number(up[0]?.value[1]);
            return at > paused ? at : undefined;
          }
        );
        await waitUntil(
          `a rule evaluation after the scrape (${file})`,
          30_000,
          async () => {
            // The rules of one group are evaluated together: one of them tells when.
            const evaluated = await query(
              server.url,
              `min(timestamp(${firstRule(file)}))`
            );
            return Number(evaluated[0]?.value[1]) > scraped ? true : undefined;
          },
          () =>
            `rule ${firstRule(file)}; prometheus output: ${server.process.output()}`
        );
      }
    }, 150_000);

    afterAll(async () => {
      for (const server of servers.values()) await stop(server.process);
      await hostServer?.close();
      await demo?.close();
      dir.remove();
    });

    describe.each(CASES.map(c => [c.file.slice(ROOT.length + 1), c] as const))(
      '%s',
      (_name, c) => {
        it('should write the three files and exit 0', () => {
          const output = outputs.get(c.file)!;
          expect({ code: output.code, stderr: output.stderr }).toEqual({
            code: 0,
            stderr: '',
          });
          expect(output.stdout).toMatch(
            /^wrote .*prometheus\.yml, .*rules\.yml, .*report\.txt\n$/
          );
        });

        it('should generate a prometheus.yml that promtool check config accepts, rules included', () => {
          const file = join(outputs.get(c.file)!.dir, 'prometheus.yml');
          const check = spawnSync(promtool, ['check', 'config', file], {
            encoding: 'utf8',
            timeout: 10_000,
          });
          const output = `${check.stdout}${check.stderr}`;
          expect({ status: check.status, output }).toEqual({
            status: 0,
            output: expect.stringContaining('SUCCESS') as unknown,
          });
          expect(output).toMatch(/SUCCESS: \d+ rules found/);
        });

        it('should name each pitfall planted in the file in report.txt', () => {
          const report = readFileSync(
            join(outputs.get(c.file)!.dir, 'report.txt'),
            'utf8'
          );
          for (const tag of c.tags)
            expect({ tag, found: report.includes(`[${tag}]`) }).toEqual({
              tag,
              found: true,
            });
        });

        it('should name rules legacy:<name>:<key> carrying the raw host type', async () => {
          const server = servers.get(c.file)!;
          for (const [record, hostType] of c.rules) {
            const result = await query(server.url, record);
            expect({
              record,
              hostTypes: result.map(
                s => s.metric.host_type ?? s.metric.host ?? ''
              ),
            }).toEqual({
              record,
              hostTypes: expect.arrayContaining([hostType]) as unknown,
            });
          }
        });

        it('should make Prometheus evaluate every rule to what the legacy API serves', async () => {
          const server = servers.get(c.file)!;
          const rules = parse(
            readFileSync(join(outputs.get(c.file)!.dir, 'rules.yml'), 'utf8')
          ) as {
            groups: { rules: { record: string }[] }[];
          };
          const records = rules.groups.flatMap(g => g.rules.map(r => r.record));
          expect(records.length).toBeGreaterThan(0);
          // What the legacy API serves, by rule name and host type ('' for the global metrics).
          const expected = new Map<string, number>();
          for (const [label, path] of [
            ...DEMO_HOST_TYPES.map(h => [
              h,
              `${c.variant ?? 'host_type'}/${encodeURIComponent(h)}`,
            ]),
            ['', 'global'],
          ] as const) {
            for (const [name, value] of Object.entries(
              await legacyMap(
                c.variant === 'host' ? `${hostServer!.url}/api` : demo!.legacy,
                path
              )
            ))
              for (const [key, number] of Object.entries(value))
                expected.set(
                  `${recordingRuleName(name, key)} ${label}`,
                  number
                );
          }
          const compared: {
            id: string;
            legacy: number | undefined;
            prometheus: number;
          }[] = [];
          for (const record of new Set(records)) {
            for (const sample of await query(server.url, record)) {
              const id = `${record} ${sample.metric.host_type ?? sample.metric.host ?? ''}`;
              compared.push({
                id,
                legacy: expected.get(id),
                prometheus: Number(sample.value[1]),
              });
            }
          }
          expect(compared.length).toBeGreaterThanOrEqual(c.rules.length);
          const wrong = compared.filter(({ id, legacy, prometheus }) => {
            if (legacy === undefined) return true;
            const key = id.split(' ')[0]!.split(':').at(-1)!;
            // The traffic is paused and the demo younger than the 60 s window, so the window holds
            // every value: count, value, one and n are exact (one's tolerance, the increments of a
            // scrape interval and a slot at each end of the window, is zero here).
            if (['count', 'value', 'one', 'n'].includes(key))
              return prometheus !== legacy;
            // An integer histogram's legacy mean is truncated.
            if (key === 'mean')
              return !(prometheus >= legacy && prometheus < legacy + 1);
            // Percentiles: the legacy estimate (within 4.4 %) and Prometheus' interpolation lie in the
            // same explicit bucket or the next one.
            const low = bucketIndex(legacy * (1 - 0.044));
            const high = bucketIndex(legacy * (1 + 0.044));
            const at = bucketIndex(prometheus);
            return at < low - 1 || at > high + 1;
          });
          expect(wrong).toEqual([]);
        });
      }
    );
  }
);
