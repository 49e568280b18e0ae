/**
 * How much of a server the migration tools will read, and for how long: what keeps a broken or
 * hostile server (an endless body, a gzip bomb, a slow drip) from taking the tool's memory or
 * time. Each limit is a documented constant with an environment override.
 */
import { MigrationError } from './MigrationError';

/** What one read may take. */
export interface ReadLimits {
  /**
   * The most bytes of a legacy API JSON body, counted after decompression. The legacy API's
   * documents are small (a listing of 10,000 host types is about 300 KB).
   * @default 8 MiB
   */
  readonly maxJsonBytes: number;
  /**
   * The most bytes of a Prometheus exposition, counted after decompression: about twice the
   * package's own exposition at 10,000 host types × 10 metrics (36 MB).
   * @default 64 MiB
   */
  readonly maxExpositionBytes: number;
  /**
   * The most time for one read, from connecting to the last byte, redirects included.
   * @default 30_000
   */
  readonly timeoutMs: number;
  /**
   * The most time without a byte from the server, before or during the body.
   * @default 10_000
   */
  readonly idleTimeoutMs: number;
  /**
   * The most redirects followed, each to the same origin only.
   * @default 5
   */
  readonly maxRedirects: number;
}

/** The limits when the environment sets none. */
export const DEFAULT_READ_LIMITS: ReadLimits = Object.freeze({
  maxJsonBytes: 8 * 1024 * 1024,
  maxExpositionBytes: 64 * 1024 * 1024,
  timeoutMs: 30_000,
  idleTimeoutMs: 10_000,
  maxRedirects: 5,
});

/** The environment variables that override the limits. */
export const READ_LIMIT_VARIABLES = Object.freeze({
  /** Sets both body caps (JSON and exposition), in bytes. */
  maxBodyBytes: 'LEGACY_METRICS_API_MAX_BODY_BYTES',
  timeoutMs: 'LEGACY_METRICS_API_READ_TIMEOUT_MS',
  idleTimeoutMs: 'LEGACY_METRICS_API_IDLE_TIMEOUT_MS',
});

const POSITIVE_INTEGER = /^[1-9]\d*$/;

function positiveInteger(
  env: NodeJS.ProcessEnv,
  variable: keyof typeof READ_LIMIT_VARIABLES,
  unit: string
): number | undefined {
  const name = READ_LIMIT_VARIABLES[variable];
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(Number(value)))
    throw new MigrationError(
      `${name}: found ${JSON.stringify(value)}, expected a positive integer (${unit})`
    );
  return Number(value);
}

/** The limits in effect: the defaults, overridden by the environment; a bad value is a MigrationError. */
export function readLimits(env: NodeJS.ProcessEnv = process.env): ReadLimits {
  const body = positiveInteger(env, 'maxBodyBytes', 'bytes');
  const timeoutMs = positiveInteger(env, 'timeoutMs', 'milliseconds');
  const idleTimeoutMs = positiveInteger(env, 'idleTimeoutMs', 'milliseconds');
  const defaults = DEFAULT_READ_LIMITS;
  return {
    maxJsonBytes: body ?? defaults.maxJsonBytes,
    maxExpositionBytes: body ?? defaults.maxExpositionBytes,
    timeoutMs: timeoutMs ?? defaults.timeoutMs,
    idleTimeoutMs: idleTimeoutMs ?? defaults.idleTimeoutMs,
    maxRedirects: defaults.maxRedirects,
  };
}
