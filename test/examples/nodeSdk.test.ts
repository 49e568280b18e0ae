import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';

/**
 * examples/node-sdk: NodeSDK with the HTTP auto-instrumentation, the Prometheus exporter and the
 * legacy reader, run as a user runs it (built, in a process of its own, so that the
 * instrumentation patches node:http as in an application). Prometheus shows the
 * instrumentation's metrics and the application's; the legacy API the application's only.
 */

const MAIN = join(
  resolve(__dirname, '..', '..'),
  'dist',
  'examples',
  'node-sdk',
  'main.js'
);
/** How long the example may take to print its URLs, and a read to show a recording. */
const DEADLINE_MS = 15_000;

interface Urls {
  application: string;
  prometheus: string;
  legacy: string;
}

/** Starts the example on free ports and resolves to the URLs it prints. */
async function startExample(): Promise<{ child: ChildProcess; urls: Urls }> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: '0', LEGACY_API_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', chunk => (output += String(chunk)));
  const urls = await new Promise<Urls>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`no URLs within ${DEADLINE_MS} ms:\n${output}`)),
      DEADLINE_MS
    );
    child.once('exit', code =>
      fail(new Error(`the example exited (${code}):\n${output}`))
    );
    child.stdout!.on('data', chunk => {
      output += String(chunk);
      const found = (label: string): string | undefined =>
        new RegExp(`^${label}:\\s+(\\S+)$`, 'm').exec(output)?.[1];
      const application = found('application');
      const prometheus = found('Prometheus');
      const legacy = found('legacy metrics API');
      if (application && prometheus && legacy) {
        clearTimeout(timer);
        done({ application, prometheus, legacy });
      }
    });
  });
  return { child, urls };
}

/** The legacy listing once it shows `name`: the reader publishes once per slot. */
async function listingWith(url: string, name: string): Promise<unknown> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const listing = (await (await fetch(url)).json()) as { metrics: string[] };
    if (listing.metrics.includes(name) || Date.now() > deadline) return listing;
    await new Promise(tick => setTimeout(tick, 50));
  }
}

describe('examples/node-sdk', () => {
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child?.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('should serve the application metrics only in the legacy API, the instrumentation metrics too in Prometheus, and stop on SIGTERM', async () => {
    const started = await startExample();
    child = started.child;
    const { urls } = started;

    const posted = await fetch(urls.application, { method: 'POST' });
    expect(posted.status).toBe(202);

    expect(await listingWith(urls.legacy, 'xmppMessageSent')).toEqual({
      host_types: ['localhost'],
      metrics: ['xmppMessageSent'],
      global: [],
    });
    // The listing names single-part names only; /all names every one, the instrumentation's too
    // were they served.
    expect(await (await fetch(`${urls.legacy}/all`)).json()).toEqual({
      metrics: { xmppMessageSent: { count: 1, one: 1 } },
    });

    const exposition = await (await fetch(urls.prometheus)).text();
    const names = new Set(
      [...exposition.matchAll(/^(\w+)\{/gm)].map(match => match[1])
    );
    expect(names).toContain('xmppMessageSent_total');
    expect(
      [...names].filter(name => name.startsWith('http_server_'))
    ).not.toEqual([]);

    // And it stops cleanly, the instrumentation having seen requests.
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  }, 60_000);
});
