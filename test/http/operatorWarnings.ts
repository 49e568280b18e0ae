import { WARNING_TYPE } from '../../src/warnings';
import { captureDiag } from '../support/diag';

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
  const diag = captureDiag();
  return {
    emitted: take,
    logged: () => [...diag.warn],
    stop: () => {
      take();
      spy.mockRestore();
      diag.stop();
    },
  };
}
