import { LegacyApiError } from '../errors';

/**
 * A migration tool cannot go on: a server that does not answer, or answers something other than
 * the legacy API or a Prometheus exposition. The message names the URL and what was found.
 */
export class MigrationError extends LegacyApiError<'LEGACY_MIGRATION_FAILED'> {
  constructor(message: string) {
    super('LEGACY_MIGRATION_FAILED', message);
  }
}
