/**
 * The worker of `compare` (started by compareInWorker in compareRun): runs the comparison and sends its
 * progress, its output lines in batches, then its exit status or its error to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LegacyApiError } from '../errors';
import {
  runComparison,
  type CompareRequest,
  type WorkerMessage,
} from './compareRun';

/** Output lines sent in one message: few messages, no large copy held twice. */
const LINES_PER_MESSAGE = 2_000;

const port = parentPort!;
const send = (message: WorkerMessage): void => port.postMessage(message);

let lines: string[] = [];
const flush = (): void => {
  if (lines.length === 0) return;
  send({ type: 'lines', lines });
  lines = [];
};

runComparison(
  workerData as CompareRequest,
  line => {
    lines.push(line);
    if (lines.length >= LINES_PER_MESSAGE) flush();
  },
  progress => send({ type: 'progress', progress })
).then(
  code => {
    flush();
    send({ type: 'done', code });
  },
  (error: unknown) => {
    flush();
    send(
      error instanceof LegacyApiError
        ? { type: 'failed', code: error.code, message: error.message }
        : {
            type: 'crashed',
            message: (error as Error)?.stack ?? String(error),
          }
    );
  }
);
