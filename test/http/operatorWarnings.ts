import { diag, DiagLogLevel } from '@opentelemetry/api';
import { WARNING_TYPE } from '../../src/warnings';

/** One operator warning as both channels carry it. */
export interface OperatorWarning {
  readonly code: string | undefined;
  readonly message: string;
}

/**
 * Watches the package's operator warnings from now on: what reaches `process.emitWarning` (which
 * still prints them) with its code, and what reaches OpenTelemetry's diag logger.
 */
export function watchWarnings(): {
  /** The warnings given to `process.emitWarning` so far, in order. */
  emitted(): OperatorWarning[];
  /** The messages given to `diag.warn` so far, in order. */
  logged(): string[];
  stop(): void;
} {
  const spy = jest.spyOn(process, 'emitWarning');
  const logged: string[] = [];
  const emitted: OperatorWarning[] = [];
  /** Moves the spy's calls into `emitted`: restoring the spy forgets them. */
  const take = (): OperatorWarning[] => {
    for (const [message, options] of spy.mock.calls) {
      const { type, code } = (options ?? {}) as {
        type?: string;
        code?: string;
      };
      if (type === WARNING_TYPE)
        emitted.push({ code, message: String(message) });
    }
    spy.mockClear();
    return [...emitted];
  };
  const ignore = (): void => {};
  diag.setLogger(
    {
      error: ignore,
      warn: message => logged.push(message),
      info: ignore,
      debug: ignore,
      verbose: ignore,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true }
  );
  return {
    emitted: take,
    logged: () => [...logged],
    stop: () => {
      take();
      spy.mockRestore();
      diag.disable();
    },
  };
}
