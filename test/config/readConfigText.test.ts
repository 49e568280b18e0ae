import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  MAX_CONFIG_BYTES,
  readConfigFile,
  readConfigStream,
} from '../../src/config/readConfigText';
import { ConfigError } from '../../src/errors';

const TOO_LARGE =
  'found more than 4 MiB, expected a configuration of at most 4 MiB (4194304 bytes)';

/** A stream of `size`-byte chunks of spaces that never ends, counting what was read from it. */
function endless(size: number): { stream: Readable; read(): number } {
  let read = 0;
  const stream = new Readable({
    read() {
      read += size;
      this.push(Buffer.alloc(size, ' '));
    },
  });
  return { stream, read: () => read };
}

describe('readConfigStream', () => {
  it('should read up to 4 MiB exactly, as UTF-8, the byte order mark kept', async () => {
    const text = `\uFEFF${'é'.repeat(1000)}${' '.repeat(MAX_CONFIG_BYTES - 2003)}`;
    expect(Buffer.byteLength(text)).toBe(MAX_CONFIG_BYTES);
    const read = await readConfigStream(
      Readable.from([Buffer.from(text)]),
      'x'
    );
    expect(read).toBe(text);
  });

  it('should stop at the cap, destroy the stream and name it', async () => {
    const source = endless(64 * 1024);
    await expect(readConfigStream(source.stream, '<stdin>')).rejects.toThrow(
      new ConfigError('<stdin>', '', TOO_LARGE)
    );
    expect(source.stream.destroyed).toBe(true);
    // At most one chunk past the cap, and what the stream buffered ahead.
    expect(source.read()).toBeLessThan(MAX_CONFIG_BYTES + 20 * 64 * 1024);
  });
});

describe('readConfigFile', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olma-read-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('should refuse a file one byte over the cap, naming it', async () => {
    const path = join(dir, 'big.toml');
    await writeFile(path, Buffer.alloc(MAX_CONFIG_BYTES + 1, ' '));
    await expect(readConfigFile(path)).rejects.toThrow(
      new ConfigError(path, '', TOO_LARGE)
    );
  });

  it('should pass on the error of a file that cannot be read', async () => {
    await expect(
      readConfigFile(join(dir, 'missing.toml'))
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
