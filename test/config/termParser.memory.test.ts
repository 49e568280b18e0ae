import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The built parser in a process of its own, under a heap cap (needs `npm run build`). */
describe('parseTerms: large input', () => {
  it('should read 50 MB strings, atoms and binaries in linear memory (heap capped at 200 MB)', () => {
    // In a process of its own, so that the cap applies to the parse alone.
    const parser = join(
      resolve(__dirname, '..', '..'),
      'dist/src/config/termParser.js'
    );
    const script = `
      const { parseTerms } = require(${JSON.stringify(parser)});
      const run = 'a'.repeat(999);
      const text = '{"' + (run + '\\\\n').repeat(50_000) + '", <<"' + 'b'.repeat(50e6) + '">>, ' + 'c'.repeat(50e6) + '}.';
      const [tuple] = parseTerms(text, 'big.cfg');
      const [string, binary, atom] = tuple.elements;
      console.log(string.value.length, string.value.slice(998, 1001) === 'a\\na', binary.value.length, atom.value.length);
    `;
    const child = spawnSync(
      process.execPath,
      ['--max-old-space-size=200', '-e', script],
      { encoding: 'utf8', timeout: 20_000 }
    );
    expect(child.stderr).toBe('');
    expect(child.stdout).toBe('50000000 true 50000000 50000000\n');
  });
});
