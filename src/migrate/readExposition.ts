/**
 * One read of a server's Prometheus exposition into an {@link ExpositionIndex}, with the errors a
 * person reads.
 */
import type { ExpositionIndex, ExpositionRead } from './expositionIndex';
import { boundedGet } from './boundedGet';
import { readLimits } from './readLimits';
import { MigrationError } from './MigrationError';

const EXPOSITION_ACCEPT = 'text/plain;version=0.0.4';

/** Reads `url` into `index` as it arrives; fails with a MigrationError naming the URL. */
export async function readExposition(
  url: string,
  index: ExpositionIndex
): Promise<ExpositionRead> {
  const startedAt = Date.now();
  const parse = index.begin(startedAt);
  const unreadable = (error: unknown): MigrationError =>
    new MigrationError(
      `${url}: ${(error as Error).message}, expected a Prometheus exposition`
    );
  const limits = readLimits();
  const result = await boundedGet(url, {
    accept: EXPOSITION_ACCEPT,
    tool: 'compare',
    limits,
    maxBytes: limits.maxExpositionBytes,
    onText: text => {
      try {
        parse.write(text);
      } catch (error) {
        throw unreadable(error);
      }
    },
  });
  if (result.status === 404)
    throw new MigrationError(
      `${url}: found a 404, expected a Prometheus exposition`
    );
  try {
    return parse.end();
  } catch (error) {
    throw unreadable(error);
  }
}
