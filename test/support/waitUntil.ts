/**
 * Polls `probe` every 100 ms until it returns a value other than undefined, or throws after
 * `timeoutMs`, naming `what` and the probe's last error: a bounded wait for a condition.
 */
export async function waitUntil<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  explain: () => string = () => ''
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause =
        lastError === undefined ? '' : ` (last error: ${String(lastError)})`;
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${cause}\n${explain()}`
      );
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}
