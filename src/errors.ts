/**
 * Errors thrown by this package. Each class has a stable `code`, typed as the literal union of
 * its codes so that a `switch` over it can be exhaustive, and fields that say what went wrong
 * for programs, beside the message for people. `instanceof` works across duplicate installs
 * and jest realms because it checks a symbol brand rather than the prototype chain.
 */

const kLegacyApiError = Symbol.for('otel-legacy-metrics-api.error');

/** Every code an error of this package may carry. */
export type LegacyApiErrorCode =
  | InvalidOptionError['code']
  | ConfigError['code']
  | ListenError['code']
  | 'LEGACY_USAGE'
  | 'LEGACY_MIGRATION_FAILED';

/** Base class of every error this package throws on purpose. */
export class LegacyApiError<
  Code extends LegacyApiErrorCode = LegacyApiErrorCode,
> extends Error {
  /** A stable, prefixed identifier, e.g. `LEGACY_INVALID_OPTION`. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
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

/** What an {@link InvalidOptionError} is about. */
export interface InvalidOptionDetails {
  /** The option's full path: `reader.windowMs`, `listeners[1].port`, `OTEL_EXPORTER_OTLP_PROTOCOL`. */
  readonly option: string;
  /** The value found; undefined when the option was left out (or for an unknown option, its value). */
  readonly found: unknown;
  /** What was expected, as the message says it: `a positive integer`. */
  readonly expected: string;
}

/** A constructor or function option is invalid. Thrown at once, before anything starts. */
export class InvalidOptionError
  extends LegacyApiError<'LEGACY_INVALID_OPTION'>
  implements InvalidOptionDetails
{
  readonly option: string;
  readonly found: unknown;
  readonly expected: string;

  /**
   * @param details set on every error this package throws; left out (as when matching a
   *   message in a test), `option` and `expected` are empty
   */
  constructor(message: string, details?: InvalidOptionDetails) {
    super('LEGACY_INVALID_OPTION', message);
    this.option = details?.option ?? '';
    this.found = details?.found;
    this.expected = details?.expected ?? '';
  }
}

/** `line 3, column 7`: the place of a position in a term file or of a TOML syntax error. */
const LINE_AND_COLUMN = /^line (\d+), column (\d+)$/;

/**
 * A configuration file cannot be used. The message names the file, the place in it
 * (a TOML key path or a line and column), what was found and what was expected.
 */
export class ConfigError extends LegacyApiError<'LEGACY_CONFIG_INVALID'> {
  /** The configuration file, as given. */
  readonly file: string;
  /** Where in the file: `listen.http[0].port`, or `line 3, column 7`. Empty when the whole file is at fault. */
  readonly place: string;
  /** The 1-based line, when the place is a position (term files, TOML syntax); else undefined. */
  readonly line: number | undefined;
  /** The 1-based column (in code points) that goes with `line`; else undefined. */
  readonly column: number | undefined;

  constructor(file: string, place: string, problem: string) {
    super(
      'LEGACY_CONFIG_INVALID',
      place === '' ? `${file}: ${problem}` : `${file}: ${place}: ${problem}`
    );
    this.file = file;
    this.place = place;
    const position = LINE_AND_COLUMN.exec(place);
    this.line = position === null ? undefined : Number(position[1]);
    this.column = position === null ? undefined : Number(position[2]);
  }
}

/** A listener could not be started (address in use, permission denied, …). */
export class ListenError extends LegacyApiError<'LEGACY_LISTEN_FAILED'> {
  /** The address it tried to bind, e.g. `127.0.0.1`. */
  readonly address: string;
  /** The port it tried to bind (0 for a free one). */
  readonly port: number;
  /** The system's error: `cause.code` is `EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`, … */
  declare readonly cause: NodeJS.ErrnoException;

  /**
   * @param details set on every error this package throws; left out (as when matching a
   *   message in a test), `address` is empty, `port` is 0 and there is no `cause`
   */
  constructor(
    message: string,
    details?: {
      readonly address: string;
      readonly port: number;
      readonly cause: NodeJS.ErrnoException;
    }
  ) {
    super(
      'LEGACY_LISTEN_FAILED',
      message,
      details === undefined ? undefined : { cause: details.cause }
    );
    this.address = details?.address ?? '';
    this.port = details?.port ?? 0;
  }
}
