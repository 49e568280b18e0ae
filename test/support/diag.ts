import { diag, DiagLogLevel } from '@opentelemetry/api';

/** What reached OpenTelemetry's diag logger since {@link captureDiag}; the arrays fill as it logs. */
export interface DiagCapture {
  readonly error: string[];
  readonly warn: string[];
  /** Errors and warnings together, in the order they came. */
  readonly errorsAndWarnings: string[];
  /** Puts the diag logger back to none. */
  stop(): void;
}

/**
 * Installs a diag logger that keeps the messages at `level` and above (info and below are not
 * kept), in place of any other, until `stop()` or the end of the test.
 */
export function captureDiag(level = DiagLogLevel.WARN): DiagCapture {
  const capture: DiagCapture = {
    error: [],
    warn: [],
    errorsAndWarnings: [],
    stop: () => diag.disable(),
  };
  const ignore = (): void => {};
  diag.setLogger(
    {
      error: message => {
        capture.error.push(message);
        capture.errorsAndWarnings.push(message);
      },
      warn: message => {
        capture.warn.push(message);
        capture.errorsAndWarnings.push(message);
      },
      info: ignore,
      debug: ignore,
      verbose: ignore,
    },
    { logLevel: level, suppressOverrideMessage: true }
  );
  return capture;
}
