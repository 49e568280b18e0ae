/**
 * Errors thrown by this package. Each has a stable `code`; `instanceof` works
 * across duplicate installs and jest realms because it checks a symbol brand
 * rather than the prototype chain.
 */

const kLegacyApiError = Symbol.for('otel-legacy-metrics-api.error');

/** Base class of every error this package throws on purpose. */
export class LegacyApiError extends Error {
  /** A stable, prefixed identifier, e.g. `LEGACY_INVALID_OPTION`. */
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }

  override get name(): string {
    return this.constructor.name;
  }

  get [kLegacyApiError](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    if ((value as Record<symbol, unknown>)[kLegacyApiError] !== true)
      return false;
    // `LegacyApiError` itself matches every branded error; subclasses match their own name.
    return this === LegacyApiError || (value as Error).name === this.name;
  }
}

/** A constructor or function option is invalid. Thrown at once, before anything starts. */
export class InvalidOptionError extends LegacyApiError {
  constructor(message: string) {
    super('LEGACY_INVALID_OPTION', message);
  }
}

/**
 * A configuration file cannot be used. The message names the file, the place in it
 * (a TOML key path or a line and column), what was found and what was expected.
 */
export class ConfigError extends LegacyApiError {
  /** The configuration file, as given. */
  readonly file: string;
  /** Where in the file: `listen.http[0].port`, or `line 3, column 7`. Empty when the whole file is at fault. */
  readonly place: string;

  constructor(file: string, place: string, problem: string) {
    super(
      'LEGACY_CONFIG_INVALID',
      place === '' ? `${file}: ${problem}` : `${file}: ${place}: ${problem}`
    );
    this.file = file;
    this.place = place;
  }
}

/** A listener could not be started (address in use, permission denied, …). */
export class ListenError extends LegacyApiError {
  constructor(message: string) {
    super('LEGACY_LISTEN_FAILED', message);
  }
}
