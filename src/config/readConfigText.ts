/**
 * Reads configuration text from a file or a stream (standard input for `check-config -`), up to
 * a size cap: a messaging server's configuration is a few kilobytes, and reading stops at the
 * cap instead of holding whatever arrives in memory.
 */
import { createReadStream } from 'node:fs';
import { ConfigError } from '../errors';

/** The most bytes a configuration file (or standard input) may hold: 4 MiB. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

const CAP = `${MAX_CONFIG_BYTES / 1024 / 1024} MiB`;

/**
 * All of `stream`, decoded as UTF-8.
 * @param name what errors name it by (the file as given, or `<stdin>`)
 * @throws ConfigError as soon as more than {@link MAX_CONFIG_BYTES} have arrived; the stream
 *   is then destroyed, unread
 */
export async function readConfigStream(
  stream: NodeJS.ReadableStream,
  name: string
): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer =
      typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    bytes += buffer.length;
    // Leaving the loop destroys the stream: nothing more is read.
    if (bytes > MAX_CONFIG_BYTES)
      throw new ConfigError(
        name,
        '',
        `found more than ${CAP}, expected a configuration of at most ${CAP} (${MAX_CONFIG_BYTES} bytes)`
      );
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

/**
 * The text of the file at `path`, read as {@link readConfigStream} reads.
 * @throws ConfigError when the file is over the cap; the error of `fs` when it cannot be read
 */
export function readConfigFile(path: string): Promise<string> {
  return readConfigStream(createReadStream(path), path);
}
