import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest folder above this module with a package.json: the same from src/ and dist/src/. */
export function packageRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir)
    dir = dirname(dir);
  return dir;
}

/** This package's version, from its package.json. */
export function packageVersion(): string {
  const manifest = JSON.parse(
    readFileSync(join(packageRoot(), 'package.json'), 'utf8')
  ) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
