/**
 * A worker's side of the cluster over a real IPC channel (a forked child): the outbox never has
 * more than MAX_QUEUED_MESSAGES handed to the channel and not yet written, and the cluster
 * Prometheus reader warns of a failed collection.
 */
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { MAX_QUEUED_MESSAGES } from '../../src/reader/WorkerChannel';

describe('sendToPrimary', () => {
  it('should drop what is past the bound with one warning, and send again once the queue drained', async () => {
    const child = fork(resolve(__dirname, 'fixtures', 'outbox.js'), [], {
      execPath: process.execPath,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const messages: Array<Record<string, unknown>> = [];
    // The report is the child's last message: the channel keeps order, so every other is in.
    const done = new Promise<void>((resolved, failed) => {
      child.on('message', message => {
        messages.push(message as Record<string, unknown>);
        if ((message as { event?: unknown }).event === 'done') resolved();
      });
      child.once('exit', code =>
        failed(new Error(`the child exited (code ${code}) before its report`))
      );
    });
    await done;
    const report = messages.find(m => m['event'] === 'done');
    expect(report).toEqual({
      event: 'done',
      first: MAX_QUEUED_MESSAGES,
      second: 3,
      warnings: ['LEGACY_API_CLUSTER_QUEUE_FULL'],
    });
    // What was sent arrived, in order; what was dropped did not.
    const bodies = messages
      .filter(m => m['type'] === 'test')
      .map(m => m['body']);
    expect(bodies).toEqual([
      ...Array.from({ length: MAX_QUEUED_MESSAGES }, (_, i) => `message ${i}`),
      'message 0',
      'message 1',
      'message 2',
    ]);
  }, 20_000);
});

describe('createClusterPrometheusReader', () => {
  it('should warn once with a stable code when a collection fails whole', async () => {
    const child = fork(resolve(__dirname, 'fixtures', 'unboundReader.js'), [], {
      execPath: process.execPath,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const report = await new Promise<Record<string, unknown>>(
      (resolved, failed) => {
        child.once('message', message =>
          resolved(message as Record<string, unknown>)
        );
        child.once('exit', code =>
          failed(new Error(`the child exited (code ${code}) before its report`))
        );
      }
    );
    child.kill();
    expect(report['warnings']).toEqual([
      {
        code: 'LEGACY_API_COLLECT_ERROR',
        message: expect.stringMatching(
          /^cluster Prometheus reader: collection failed: .+/
        ) as unknown,
      },
    ]);
  }, 20_000);
});
