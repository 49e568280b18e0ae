import { constants } from 'node:os';

/**
 * Watches SIGINT and SIGTERM: `first` resolves with the first one; from then on a second one
 * exits at once, with the status a shell gives a process killed by it (128 + its number).
 * `release` restores the default handling.
 */
export function watchSignals(): { first: Promise<void>; release(): void } {
  let onFirst: () => void = () => undefined;
  const first = new Promise<void>(resolve => (onFirst = resolve));
  let seen = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (seen) process.exit(128 + constants.signals[signal]);
    seen = true;
    onFirst();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    first,
    release: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
