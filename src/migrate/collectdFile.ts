/**
 * Reading one collectd configuration file, bounded: only a regular file is read (never a device,
 * a pipe or a socket, which could be endless or block), and only up to a size no real
 * configuration reaches.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  type Stats,
} from 'node:fs';
import { ConfigError } from '../errors';

/** The largest configuration file read: collectd's own files are a few tens of KB. */
export const MAX_COLLECTD_FILE_BYTES = 1024 * 1024;

function kind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'no regular file';
}

/**
 * The text of the configuration file `path`. `from` and `line` name the `Include` that reads it,
 * if any: a missing included file is the Include line's fault, a top-level one the file's own.
 */
export function readCollectdFile(
  path: string,
  from: string,
  line: number | undefined
): string {
  const file = line === undefined ? path : from;
  const place = line === undefined ? '' : `line ${line}`;
  const what = line === undefined ? 'it' : path;
  const fail = (
    found: string,
    expected = 'a collectd configuration file'
  ): never => {
    throw new ConfigError(file, place, `${found}, expected ${expected}`);
  };
  const tooBig = (size: string): never =>
    fail(
      `found ${size} bytes${line === undefined ? '' : ` in ${path}`}`,
      `a collectd configuration file of at most ${MAX_COLLECTD_FILE_BYTES} bytes`
    );
  let fd: number;
  try {
    // Non-blocking, so that opening a named pipe with no writer does not wait for one.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return fail(`cannot read ${what} (${code})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      fail(`found ${kind(stats)}${line === undefined ? '' : ` at ${path}`}`);
    if (stats.size > MAX_COLLECTD_FILE_BYTES) tooBig(String(stats.size));
    // Read at most one byte past the cap, in case the file grows after fstat.
    const buffer = Buffer.alloc(MAX_COLLECTD_FILE_BYTES + 1);
    let length = 0;
    for (let read = 1; read > 0 && length < buffer.length; length += read)
      read = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_COLLECTD_FILE_BYTES)
      tooBig(`more than ${MAX_COLLECTD_FILE_BYTES}`);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
