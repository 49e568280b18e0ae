/**
 * The heavy part of `compare`, once its command line is read: the comparison and its output. It
 * runs in the CLI's worker (see compareInWorker) or, for tests and embedders, in-process.
 */
import {
  compareServers,
  type CompareProgress,
} from '../migrate/compareServers';
import { comparisonText } from '../migrate/comparisonText';

/** What `compare` was asked, as the worker receives it. */
export interface CompareRequest {
  readonly legacy: string;
  readonly prometheus: string;
  readonly hostTypes: readonly string[] | undefined;
  readonly json: boolean;
}

/** Exit status when a key disagrees. */
export const EXIT_DISAGREE = 1;

/** Compares, prints the comparison through `out` and resolves to the exit status. */
export async function runComparison(
  request: CompareRequest,
  out: (line: string) => void,
  onProgress: (progress: CompareProgress) => void
): Promise<number> {
  const comparison = await compareServers({
    legacy: request.legacy,
    prometheus: request.prometheus,
    hostTypes: request.hostTypes,
    onProgress,
  });
  if (request.json) out(JSON.stringify(comparison, null, 2));
  else for (const line of comparisonText(comparison)) out(line);
  return comparison.disagreements === 0 ? 0 : EXIT_DISAGREE;
}
