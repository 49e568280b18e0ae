import { WARNING_TYPE } from '../../src/warnings';

/** One warning of this package, as it reached `process.emitWarning`. */
export interface CapturedWarning {
  readonly code: string | undefined;
  readonly message: string;
}

/** What the package emitted since the test began or since the last {@link takeWarnings}. */
const captured: CapturedWarning[] = [];

/** The type, code and message of a `process.emitWarning` call, whichever of its forms it took. */
function describeCall(
  warning: string | Error,
  options: unknown,
  code: unknown
): { type: string; code: string | undefined; message: string } {
  if (warning instanceof Error)
    return {
      type: warning.name,
      code: (warning as NodeJS.ErrnoException).code,
      message: warning.message,
    };
  if (typeof options === 'object' && options !== null) {
    const given = options as { type?: string; code?: string };
    return {
      type: given.type ?? 'Warning',
      code: given.code,
      message: warning,
    };
  }
  return {
    type: typeof options === 'string' ? options : 'Warning',
    code: typeof code === 'string' ? code : undefined,
    message: warning,
  };
}

/**
 * Keeps this package's warnings from printing for the rest of the test file: they are kept for
 * {@link takeWarnings} instead (a spy on `process.emitWarning` still sees every call). Other
 * warnings (Node's, a dependency's) still print: nothing in the suite expects them.
 */
export function captureWarnings(): void {
  const print = process.emitWarning;
  process.emitWarning = function emitWarning(
    warning: string | Error,
    options?: unknown,
    code?: unknown,
    ...rest: unknown[]
  ): void {
    const call = describeCall(warning, options, code);
    if (call.type === WARNING_TYPE)
      captured.push({ code: call.code, message: call.message });
    else
      (print as (...args: unknown[]) => void).call(
        process,
        warning,
        options,
        code,
        ...rest
      );
  } as typeof process.emitWarning;
  beforeEach(() => {
    captured.length = 0;
  });
}

/** The package's warnings emitted since the test began or since the last call, in order. */
export function takeWarnings(): CapturedWarning[] {
  return captured.splice(0);
}

/** The codes of {@link takeWarnings}, in order. */
export function takeWarningCodes(): Array<string | undefined> {
  return takeWarnings().map(warning => warning.code);
}
