/**
 * docs/MIGRATION.md is a runnable guide: every command of its ```sh blocks runs, in order, in one
 * shell, from an empty directory, against the demo, a real collectd and a real Prometheus. The
 * guide's ports (8088, 9464, 9090) are replaced by free ones, and `npx otel-legacy-metrics-api`
 * finds this build as it would find the installed package. Any drift between the guide and the
 * commands fails here.
 */
import { spawn } from 'node:child_process';
import {
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  describeWithClients,
  freePort,
  temporaryDirectory,
} from '../realClients/support';

const ROOT = resolve(__dirname, '..', '..');
const GUIDE = join(ROOT, 'docs', 'MIGRATION.md');
const SH_BLOCK = /^```sh\n([\s\S]*?)^```/gm;
/** The ports the guide names: the demo's legacy API, its Prometheus exporter, Prometheus. */
const GUIDE_PORTS = [8088, 9464, 9090] as const;
const RUN_TIMEOUT_MS = 240_000;
/** Stop at the first failing command, and trace each with its start time (set here: bash ignores PS4 from the environment of root). */
const TRACE = "PS4='+ @$(date +%s.%N) '\nset -eu -x";

/** The guide's shell blocks, in order. */
function guideCommands(text: string): string[] {
  return [...text.matchAll(SH_BLOCK)].map(match => match[1]!);
}

/**
 * A project where `npx otel-legacy-metrics-api` runs this build, as it runs the installed package:
 * the package in node_modules and its bins in node_modules/.bin, as npm links them.
 */
function consumerProject(dir: string): string {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  symlinkSync(ROOT, join(modules, 'otel-legacy-metrics-api'), 'dir');
  const manifest = JSON.parse(
    readFileSync(join(ROOT, 'package.json'), 'utf8')
  ) as { bin: Record<string, string> };
  for (const [name, target] of Object.entries(manifest.bin)) {
    const bin = join(modules, '.bin', name);
    writeFileSync(bin, `#!/bin/sh\nexec node "${join(ROOT, target)}" "$@"\n`);
    chmodSync(bin, 0o755);
  }
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      private: true,
      dependencies: { 'otel-legacy-metrics-api': '*' },
    })
  );
  const work = join(dir, 'guide');
  mkdirSync(work);
  return work;
}

interface GuideRun {
  readonly code: number | null;
  readonly output: string;
  /** Seconds since the epoch at which each traced command started, with its text. */
  readonly trace: { at: number; command: string }[];
}

function runGuide(script: string, cwd: string): Promise<GuideRun> {
  return new Promise(done => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // This Node first, as the project's scripts run; npm never asks a registry.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(killGroup, RUN_TIMEOUT_MS);
    child.once('close', code => {
      clearTimeout(timer);
      // Whatever the guide left running (on a failure, its last block never ran).
      killGroup();
      // A trace line may follow output without a newline (curl's JSON).
      const trace = [...output.matchAll(/\++ @(\d{10}\.\d+) (.*)$/gm)].map(
        match => ({ at: Number(match[1]), command: match[2]! })
      );
      done({ code, output, trace });
    });
  });
}

describe('guideCommands', () => {
  it('should find the shell blocks of the guide in order, with the demo first and the clean-up last', () => {
    const blocks = guideCommands(readFileSync(GUIDE, 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    expect(blocks[0]).toContain(
      'npx otel-legacy-metrics-api demo --config server.toml'
    );
    expect(blocks.at(-1)).toContain(
      'kill $COLLECTD $PROMETHEUS; kill -- -$DEMO'
    );
    // The package's own command, never a name anyone could publish.
    for (const block of blocks)
      expect(block).not.toMatch(/npx (-\S+ )*legacy-metrics-api/);
  });
});

describeWithClients('collectd', 'prometheus')(
  'docs/MIGRATION.md, run as written',
  () => {
    const dir = temporaryDirectory('migration-guide-');
    afterAll(() => dir.remove());

    it(
      'should run every shell command of the guide in order against the demo',
      async () => {
        const ports = await Promise.all(GUIDE_PORTS.map(() => freePort()));
        let script = guideCommands(readFileSync(GUIDE, 'utf8')).join('\n');
        GUIDE_PORTS.forEach((port, i) => {
          script = script.replace(
            new RegExp(`\\b${port}\\b`, 'g'),
            String(ports[i])
          );
        });
        const work = consumerProject(dir.path);
        const run = await runGuide(`${TRACE}\n${script}`, work);
        const logs = ['demo.log', 'prometheus.log', 'collectd.log'].map(
          name => {
            try {
              return `--- ${name}\n${readFileSync(join(work, name), 'utf8').slice(-2000)}`;
            } catch {
              return `--- ${name}: none`;
            }
          }
        );
        // On a failure, the end of the run and the logs say which command failed and why.
        expect(
          run.code === 0
            ? 0
            : `exit ${run.code}\n${run.output.slice(-4000)}\n${logs.join('\n')}`
        ).toBe(0);
        const [legacyPort, exporterPort] = ports;
        // Step 1: the listener of the file, and the listing.
        expect(run.output).toContain(
          `http://127.0.0.1:${legacyPort}/api/metrics`
        );
        expect(run.output).toContain('"host_types":["localhost","test type"]');
        // Step 2: the report of the poller's file.
        expect(run.output).toContain(
          'legacy-metrics-api migrate: report for collectd.conf'
        );
        // Step 3: the recording rule has a value for the demo's target.
        expect(run.output).toMatch(
          new RegExp(
            `"__name__":"legacy:xmppMessageSent:count".*"instance":"127\\.0\\.0\\.1:${exporterPort}"`
          )
        );
        // Step 6: the headers and the in-band countdown.
        expect(run.output).toMatch(/^Deprecation: @1767225600\r?$/im);
        expect(run.output).toMatch(
          /^Sunset: Fri, 31 Dec 2027 00:00:00 GMT\r?$/im
        );
        expect(run.output).toMatch(
          /"legacyApiSunsetDays":\{"count":(\d+),"one":\1\}/
        );
        // Step 8: who polls, collectd among them.
        expect(run.output).toContain('"user_agent_name":"collectd"');
        // Step 3's timing: values some seconds after Prometheus starts, not at once. It applies
        // targets 5 to 6 s after its start, scrapes at the target's offset in the 10 s interval,
        // evaluates at the group's offset in the next one, and the loop reads every second: at
        // most about 27 s (7 to 22 s in 24 starts measured on a loaded machine).
        // The last read of the rule before compare: the one after the waiting loop.
        const started = run.trace.find(t =>
          t.command.startsWith('prometheus ')
        );
        const compared = run.trace.find(t =>
          t.command.startsWith('npx otel-legacy-metrics-api compare')
        );
        const valued = run.trace.findLast(
          t =>
            t.at < (compared?.at ?? 0) &&
            t.command.startsWith('curl -s http://127.0.0.1') &&
            t.command.endsWith('query=legacy:xmppMessageSent:count')
        );
        const seconds = valued!.at - started!.at;
        process.stdout.write(
          `Step 3: rules have values after ${seconds.toFixed(1)} s\n`
        );
        expect(seconds).toBeGreaterThan(2);
        expect(seconds).toBeLessThan(30);
      },
      RUN_TIMEOUT_MS + 30_000
    );
  }
);
