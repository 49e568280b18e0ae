import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const FIXTURE = resolve(__dirname, 'fixtures', 'clusterServer.js');

/** An event the fixture's primary sends over its IPC channel. */
export interface ClusterEvent {
  event: 'listening' | 'recorded' | 'warning' | 'exit';
  [key: string]: unknown;
}

/** A running fixture: its primary process and the events it sent so far. */
export interface RunningCluster {
  readonly primary: ChildProcess;
  readonly events: ClusterEvent[];
  /**
   * The base URLs of the host_type and host variants (`http://127.0.0.1:port`), and with
   * SETUP=config the Prometheus endpoint's URL.
   */
  readonly urls: { hostType: string; host: string; prometheus?: string };
  send(command: Record<string, unknown>): void;
  /** Resolves once `count` events pass `test`, or rejects after `timeoutMs`. */
  waitFor(
    test: (event: ClusterEvent) => boolean,
    count?: number,
    timeoutMs?: number
  ): Promise<ClusterEvent[]>;
  /** Stops the primary and its workers; kills the primary if it does not exit within 5 s. */
  stop(): Promise<void>;
}

function until<T>(
  poll: () => T | undefined,
  timeoutMs: number,
  what: string
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((done, fail) => {
    const check = (): void => {
      const value = poll();
      if (value !== undefined) done(value);
      else if (Date.now() > deadline)
        fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      else setTimeout(check, 20);
    };
    check();
  });
}

/** Starts the fixture's primary with the project's Node, and waits until it listens. */
export async function startCluster(
  env: Record<string, string>
): Promise<RunningCluster> {
  const primary = fork(FIXTURE, [], {
    execPath: process.execPath,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  primary.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const events: ClusterEvent[] = [];
  primary.on('message', message => events.push(message as ClusterEvent));
  const exited = new Promise<void>(done => primary.once('exit', () => done()));
  const waitFor: RunningCluster['waitFor'] = (
    test,
    count = 1,
    timeoutMs = 15_000
  ) =>
    until(
      () => {
        const found = events.filter(test);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      `${count} events (stderr: ${stderr})`
    );
  const stop = async (): Promise<void> => {
    if (primary.exitCode !== null || primary.signalCode !== null) return;
    if (primary.connected) primary.send({ cmd: 'stop' });
    const timer = setTimeout(() => primary.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const [listening] = await waitFor(e => e.event === 'listening');
    return {
      primary,
      events,
      urls: {
        hostType: listening!['hostType'] as string,
        host: listening!['host'] as string,
        ...(typeof listening!['prometheus'] === 'string'
          ? { prometheus: listening!['prometheus'] }
          : {}),
      },
      send: command => primary.send(command),
      waitFor,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** GETs a legacy API path below `/api/metrics`, as JSON. */
export async function get(
  base: string,
  path: string
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}/api/metrics${path}`, {
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text === '' ? undefined : JSON.parse(text),
  };
}

/** Polls `path` until `test` passes on its JSON, or rejects after `timeoutMs`. */
export async function pollUntil(
  base: string,
  path: string,
  test: (json: any) => boolean,
  timeoutMs = 15_000
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const { status, json } = await get(base, path);
    last = json;
    if (status === 200 && test(json)) return json;
    if (Date.now() > deadline)
      throw new Error(`${path} never passed; last: ${JSON.stringify(last)}`);
    await new Promise(done => setTimeout(done, 100));
  }
}

/** A JSON answer without its `ms_since_reset`s, which count from when each process saw a series. */
export function withoutAges(json: unknown): unknown {
  return JSON.parse(JSON.stringify(json), (key, value: unknown) =>
    key === 'ms_since_reset' ? undefined : value
  );
}
