import { ConfigError } from '../../src/errors';

/** Runs `fn` and returns what it threw, failing the test when it returned. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}

/** Asserts that `fn` throws a ConfigError whose whole message is `message`. */
export function expectConfigError(fn: () => unknown, message: string): void {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).message).toBe(message);
}
