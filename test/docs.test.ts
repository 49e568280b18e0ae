import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * Every TypeScript snippet of the README and docs/ compiles under `tsc --strict` as an ES module
 * of a consumer's project, importing the built package by its name (its `exports` and the
 * declarations shipped in dist/ and esm/).
 */

const ROOT = resolve(__dirname, '..');
const TS_BLOCK = /^```ts\n([\s\S]*?)^```/gm;

interface Snippet {
  /** `README.md:39`: the file and the line of the opening fence. */
  readonly place: string;
  readonly code: string;
}

/** The `ts` code blocks of a Markdown file. */
function typescriptSnippets(file: string): Snippet[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(TS_BLOCK)].map(match => ({
    place: `${file}:${text.slice(0, match.index).split('\n').length}`,
    code: match[1]!,
  }));
}

const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter(name => name.endsWith('.md'))
    .map(name => `docs/${name}`),
];

/** A folder where the package and its peers resolve by name, as in a consumer's install. */
function consumerProject(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'olma-snippets-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  symlinkSync(ROOT, join(modules, 'otel-legacy-metrics-api'), 'dir');
  for (const name of ['@opentelemetry', '@types', 'express', 'fastify'])
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' })
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('README.md', () => {
  it('should fit on a few screens: at most 250 lines, the reference in docs/', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
    expect(lines.length).toBeLessThanOrEqual(250);
  });
});

describe('TypeScript snippets in the documentation', () => {
  const snippets = DOCUMENTS.flatMap(typescriptSnippets);

  it('should find the snippets of README.md and docs/', () => {
    expect(
      snippets.filter(s => s.place.startsWith('README.md')).length
    ).toBeGreaterThanOrEqual(3);
    expect(snippets.some(s => s.place.startsWith('docs/'))).toBe(true);
  });

  it('should compile every snippet under --strict against the built package', () => {
    const project = consumerProject();
    try {
      const files = snippets.map((snippet, index) => {
        const file = join(project.dir, `snippet${index}.mts`);
        // Each snippet is a module of its own, whether or not it imports anything.
        writeFileSync(file, `${snippet.code}\nexport {};\n`);
        return { file, snippet };
      });
      const program = ts.createProgram(
        files.map(f => f.file),
        {
          strict: true,
          noEmit: true,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          skipLibCheck: true,
        }
      );
      const problems = ts.getPreEmitDiagnostics(program).map(diagnostic => {
        const message = ts.flattenDiagnosticMessageText(
          diagnostic.messageText,
          '\n'
        );
        const owner = files.find(f => f.file === diagnostic.file?.fileName);
        if (owner === undefined || diagnostic.start === undefined)
          return message;
        const { line } = diagnostic.file!.getLineAndCharacterOfPosition(
          diagnostic.start
        );
        const [doc, fence] = owner.snippet.place.split(':');
        return `${doc}:${Number(fence) + 1 + line}: ${message}`;
      });
      expect(problems).toEqual([]);
    } finally {
      project.remove();
    }
  });
});
