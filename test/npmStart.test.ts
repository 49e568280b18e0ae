import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm start` on a tree that `npm run build` (or `npm test`) has built: `tsc -b` finds it up to
 * date, so the demo serves at once, without recompiling anything.
 */

const ROOT = resolve(__dirname, '..');
const BUILD_INFO = join(ROOT, 'dist.tsbuildinfo');
const COMPILED = join(ROOT, 'dist', 'src', 'index.js');
/** The bound of the issue, on a machine where Node starts in REFERENCE_NODE_STARTUP_MS. */
const START_BOUND_MS = 2000;
/** `node -e 0` on an idle developer machine; a loaded CI runner starts Node slower. */
const REFERENCE_NODE_STARTUP_MS = 50;

/** The environment without what the npm running the tests passes to its scripts. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.toLowerCase().startsWith('npm_')
    )
  );
}

/** Milliseconds from spawning `node -e 0` to its exit. */
async function nodeStartupMs(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await once(child, 'exit');
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs `npm start` on `config` and resolves once the demo answers: how long that took, and what. */
async function startDemo(
  config: string
): Promise<{ ms: number; status: number; listing: unknown }> {
  const started = performance.now();
  // A process group of its own: npm, its shell and the demo stop together.
  const child = spawn(
    'npm',
    ['start', '--silent', '--', '--config', config, '--no-prometheus'],
    {
      cwd: ROOT,
      env: cleanEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    }
  );
  const exited = once(child, 'exit');
  let output = '';
  child.stderr.on('data', chunk => (output += String(chunk)));
  try {
    const url = await new Promise<string>((done, fail) => {
      child.once('exit', code =>
        fail(new Error(`npm start exited (${code}):\n${output}`))
      );
      child.stdout.on('data', chunk => {
        output += String(chunk);
        const found = /^legacy metrics API: (\S+)/m.exec(output);
        if (found) done(found[1]!);
      });
    });
    const response = await fetch(url);
    const listing: unknown = await response.json();
    return {
      ms: performance.now() - started,
      status: response.status,
      listing,
    };
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

describe('npm start', () => {
  let dir: string;
  let config: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'olma-start-'));
    config = join(dir, 'server.toml');
    writeFileSync(
      config,
      [
        '[[listen.http]]',
        '  port = 0',
        '  [[listen.http.handlers.service_api]]',
        '    host = "localhost"',
        '    path = "/api"',
        '    handlers = ["service_api_metrics"]',
        '',
      ].join('\n')
    );
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('should serve the demo within 2 s on an already built tree, without recompiling', async () => {
    // The build leaves what `tsc -b` needs to find the tree up to date.
    const compiledAt = statSync(COMPILED).mtimeMs;
    expect(statSync(BUILD_INFO).mtimeMs).toBeGreaterThan(0);

    const startups = [];
    for (let i = 0; i < 5; i++) startups.push(await nodeStartupMs());
    const slowdown = Math.max(1, median(startups) / REFERENCE_NODE_STARTUP_MS);
    // The best of two runs: a load spike only ever slows a run down.
    const runs = [await startDemo(config), await startDemo(config)];
    const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));

    expect(best.status).toBe(200);
    expect(best.listing).toMatchObject({
      host_types: ['localhost', 'test type'],
    });
    expect(statSync(COMPILED).mtimeMs).toBe(compiledAt);
    expect(best.ms).toBeLessThanOrEqual(START_BOUND_MS * slowdown);
  }, 120_000);
});
