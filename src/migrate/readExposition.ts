/**
 * One read of a server's Prometheus exposition into an {@link ExpositionIndex}, with the errors a
 * person reads.
 */
import type { ExpositionIndex, ExpositionRead } from './expositionIndex';
import { fetchText } from './fetchServer';
import { MigrationError } from './MigrationError';

const EXPOSITION_ACCEPT = 'text/plain;version=0.0.4';

/** Reads `url` into `index`; fails with a MigrationError naming the URL. */
export async function readExposition(
  url: string,
  index: ExpositionIndex
): Promise<ExpositionRead> {
  const startedAt = Date.now();
  const text = await fetchText(
    url,
    EXPOSITION_ACCEPT,
    { tool: 'compare' },
    'exposition'
  );
  if (text === undefined)
    throw new MigrationError(
      `${url}: found a 404, expected a Prometheus exposition`
    );
  try {
    return index.index(text, startedAt);
  } catch (error) {
    throw new MigrationError(
      `${url}: ${(error as Error).message}, expected a Prometheus exposition`
    );
  }
}
