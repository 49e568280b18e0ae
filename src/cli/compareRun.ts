/**
 * The heavy part of `compare`, once its command line is read: the comparison and its output. The
 * built command runs it in a worker thread whose young generation is capped (compareInWorker):
 * the comparison keeps most of what it allocates (the exposition index, the compared keys), so V8
 * would grow a main thread's young generation to its largest, and a cap keeps the peak resident
 * size of 10,000 host types under 500 MB. Output lines, progress and errors come back as
 * messages. Tests and embedders run it in-process (runComparison).
 */
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { LegacyApiError, type LegacyApiErrorCode } from '../errors';
import {
  compareServers,
  type CompareOptions,
  type CompareProgress,
} from '../migrate/compareServers';
import { comparisonText } from '../migrate/comparisonText';

/** What `compare` was asked, as the worker receives it. */
export type CompareRequest = Pick<
  CompareOptions,
  'legacy' | 'prometheus' | 'hostTypes'
> & { readonly json: boolean };

/** Exit status when a key disagrees. */
export const EXIT_DISAGREE = 1;

/** Compares, prints the comparison through `out` and resolves to the exit status. */
export async function runComparison(
  request: CompareRequest,
  out: (line: string) => void,
  onProgress: (progress: CompareProgress) => void
): Promise<number> {
  const comparison = await compareServers({ ...request, onProgress });
  if (request.json) out(JSON.stringify(comparison, null, 2));
  else for (const line of comparisonText(comparison)) out(line);
  return comparison.disagreements === 0 ? 0 : EXIT_DISAGREE;
}

/** The worker's young generation, in MB (see BENCHMARKS.md: peak RSS against wall time). */
export const COMPARE_YOUNG_GENERATION_MB = 8;

/** A message from the worker to the main thread. */
export type WorkerMessage =
  | { readonly type: 'progress'; readonly progress: CompareProgress }
  | { readonly type: 'lines'; readonly lines: readonly string[] }
  | { readonly type: 'done'; readonly code: number }
  /** An error meant for a person (a LegacyApiError): its code and message. */
  | { readonly type: 'failed'; readonly code: string; readonly message: string }
  /** Any other error: its stack. */
  | { readonly type: 'crashed'; readonly message: string };

/**
 * Runs the comparison of `request` in a worker; prints its output through `out` and resolves to
 * the exit status, or rejects with the worker's error.
 */
export function compareInWorker(
  request: CompareRequest,
  out: (line: string) => void,
  onProgress: (progress: CompareProgress) => void
): Promise<number> {
  // The worker is built beside this module: compareWorker.js in dist/.
  const file = join(__dirname, `compareWorker${extname(__filename)}`);
  const worker = new Worker(file, {
    workerData: request,
    resourceLimits: { maxYoungGenerationSizeMb: COMPARE_YOUNG_GENERATION_MB },
  });
  return new Promise<number>((resolve, reject) => {
    // Messages arrive in order: the last lines before the end.
    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'progress':
          onProgress(message.progress);
          break;
        case 'lines':
          for (const line of message.lines) out(line);
          break;
        case 'done':
          resolve(message.code);
          break;
        case 'failed':
          // Meant for a person: runCli prints it as one line, whatever its class was.
          reject(
            new LegacyApiError(
              message.code as LegacyApiErrorCode,
              message.message
            )
          );
          break;
        case 'crashed':
          reject(
            Object.assign(new Error(message.message), {
              stack: message.message,
            })
          );
          break;
      }
    });
    worker.on('error', reject);
    worker.on('exit', exitCode =>
      reject(
        new Error(
          `compare: the comparison's worker exited with status ${exitCode}`
        )
      )
    );
  }).finally(() => {
    // Kept-alive connections would hold the worker open.
    void worker.terminate();
  });
}
