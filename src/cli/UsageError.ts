import { LegacyApiError } from '../errors';

/** The command line is wrong: the message says what was found and what is expected. */
export class UsageError extends LegacyApiError {
  constructor(message: string) {
    super('LEGACY_USAGE', message);
  }
}
