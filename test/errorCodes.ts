/**
 * Exhaustive switches over the code of each error class: this module type-checks only while
 * each switch names every code of its class (errors.test.ts compiles it, and a copy with a
 * case removed, with the TypeScript compiler).
 */
import {
  type ConfigError,
  type InvalidOptionError,
  type LegacyApiError,
  type ListenError,
} from '../src/errors';
import type { MigrationError } from '../src/migrate/MigrationError';

export function unreachable(code: never): never {
  throw new Error(`unhandled code ${String(code)}`);
}

export function describeAny(error: LegacyApiError): string {
  switch (error.code) {
    case 'LEGACY_INVALID_OPTION':
      return 'option';
    case 'LEGACY_CONFIG_INVALID':
      return 'config';
    case 'LEGACY_LISTEN_FAILED':
      return 'listen';
    case 'LEGACY_USAGE':
      return 'usage';
    case 'LEGACY_MIGRATION_FAILED':
      return 'migration';
    default:
      return unreachable(error.code);
  }
}

export function describeOption(error: InvalidOptionError): string {
  switch (error.code) {
    case 'LEGACY_INVALID_OPTION':
      return error.option;
    default:
      return unreachable(error.code);
  }
}

export function describeConfig(error: ConfigError): string {
  switch (error.code) {
    case 'LEGACY_CONFIG_INVALID':
      return error.file;
    default:
      return unreachable(error.code);
  }
}

export function describeListen(error: ListenError): string {
  switch (error.code) {
    case 'LEGACY_LISTEN_FAILED':
      return String(error.port);
    default:
      return unreachable(error.code);
  }
}

export function describeMigration(error: MigrationError): string {
  switch (error.code) {
    case 'LEGACY_MIGRATION_FAILED':
      return error.message;
    default:
      return unreachable(error.code);
  }
}
