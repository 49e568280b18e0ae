import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The packed package installed from its tarball into a fresh project beside each OpenTelemetry JS
 * line, as a consumer installs it: no ERESOLVE, one copy of the SDK and of the API, and the
 * README's usage snippets run. npm reaches the registry for the peers.
 */

const ROOT = resolve(__dirname, '..');
/** Bounds every npm command: a registry that does not answer fails the test, never hangs it. */
const NPM_TIMEOUT_MS = 240_000;

interface Line {
  readonly name: string;
  /** The oldest Node the line supports: [major, minor]. */
  readonly node: readonly [number, number];
  /** What a consumer on this line already has. */
  readonly base: readonly string[];
  /** What the README's install line adds for Prometheus: the exporter and the SDK it pins. */
  readonly prometheus: readonly string[];
  readonly sdkVersion: RegExp;
  readonly apiVersion: RegExp;
}

const LINES: readonly Line[] = [
  {
    name: '2.x',
    node: [20, 6],
    base: ['@opentelemetry/api@1.9', '@opentelemetry/sdk-metrics@2'],
    prometheus: [
      '@opentelemetry/sdk-metrics@2.12.0',
      '@opentelemetry/exporter-prometheus@0.223.0',
    ],
    sdkVersion: /^2\./,
    apiVersion: /^1\.9\./,
  },
  {
    name: '3.x',
    node: [22, 15],
    base: ['@opentelemetry/api@1.10', '@opentelemetry/sdk-metrics@3'],
    prometheus: [
      '@opentelemetry/sdk-metrics@3.1.0',
      '@opentelemetry/exporter-prometheus@0.301.0',
    ],
    sdkVersion: /^3\./,
    apiVersion: /^1\.10\./,
  },
];

/** The environment without what the npm running the tests passes to its scripts. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.toLowerCase().startsWith('npm_')
    )
  );
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = NPM_TIMEOUT_MS
): Promise<{ code: number; output: string }> {
  return new Promise(done => {
    execFile(
      command,
      [...args],
      { cwd, env: cleanEnv(), timeout, encoding: 'utf8' },
      (error, stdout, stderr) =>
        done({
          code:
            error === null
              ? 0
              : typeof error.code === 'number'
                ? error.code
                : -1,
          output: `${stdout}${stderr}${error?.killed === true ? '\n(killed: timed out)' : ''}`,
        })
    );
  });
}

function npmInstall(
  dir: string,
  packages: readonly string[]
): Promise<{ code: number; output: string }> {
  return run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=warn',
      ...packages,
    ],
    dir
  );
}

/** Every installed copy of a package in a project: version by path. */
function copiesOf(dir: string, name: string): Map<string, string> {
  const copies = new Map<string, string>();
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      // `.bin`, `.package-lock.json` and other files are no packages.
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(modules, entry.name);
      if (entry.name.startsWith('@')) {
        visit(path);
        continue;
      }
      const packageName = path.slice(path.lastIndexOf('node_modules/') + 13);
      if (packageName === name) {
        const manifest = JSON.parse(
          readFileSync(join(path, 'package.json'), 'utf8')
        ) as { version: string };
        copies.set(path, manifest.version);
      }
      visit(join(path, 'node_modules'));
    }
  };
  visit(join(dir, 'node_modules'));
  return copies;
}

/** The README's usage snippets (`## Use it in your server`), made runnable on free ports. */
function usageSnippets(): { name: string; source: string }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Use it in your server');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/^```(ts|js)\n([\s\S]*?)^```/gm)];
  // No fixed port in a test: the same code on ports the system picks.
  const freePorts = (code: string): string =>
    code.replace(/port: \d+/g, 'port: 0');
  return blocks.map((block, index) => {
    const code = freePorts(block[2]!);
    if (block[1] === 'js') {
      // The CommonJS form: call its main once more to see it resolve, then end.
      return {
        name: `snippet${index}.cjs`,
        source: `${code}\nmain().then(({ server, provider }) => fetch(\`\${server.url}/api/metrics\`).then(r => r.json()).then(body => { console.log(JSON.stringify(body)); return Promise.all([server.close(), provider.shutdown()]); })).then(() => process.exit(0));\n`,
      };
    }
    const js = ts.transpileModule(code, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
      },
    }).outputText;
    // Each snippet leaves a listener open: read the API through it, then end.
    const url =
      "typeof server !== 'undefined' ? server.url : `http://127.0.0.1:${app.server.address().port}`";
    return {
      name: `snippet${index}.mjs`,
      source: `${js}\nconst body = await (await fetch(\`\${${url}}/api/metrics\`)).json();\nconsole.log(JSON.stringify(body));\nprocess.exit(0);\n`,
    };
  });
}

/** The packages of the README's one install command for a line, the package's name first. */
function readmeInstallCommand(line: Line): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`# OpenTelemetry JS ${line.name} `);
  expect(start).toBeGreaterThan(-1);
  const comment = readme.indexOf('\n', start) + 1;
  // The command runs to the first line that does not end with a backslash.
  const end = readme.slice(comment).search(/[^\\]\n/) + 1;
  const words = readme
    .slice(comment, comment + end)
    .replace(/\\\n/g, ' ')
    .trim()
    .split(/\s+/);
  expect(words.slice(0, 3)).toEqual([
    'npm',
    'install',
    'otel-legacy-metrics-api',
  ]);
  return words.slice(3);
}

function supports(line: Line): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number) as [
    number,
    number,
  ];
  return (
    major > line.node[0] || (major === line.node[0] && minor >= line.node[1])
  );
}

describe('the packed package in a consumer project', () => {
  let packs: string;
  let tarball: string;
  /** The paths in the tarball. */
  let packed: string[];

  beforeAll(async () => {
    packs = mkdtempSync(join(tmpdir(), 'olma-pack-'));
    // dist/ is built by `npm test`; the tarball is what `npm publish` would upload.
    const pack = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', packs, ROOT],
      ROOT
    );
    expect(pack.code).toBe(0);
    const report = pack.output.slice(pack.output.indexOf('['));
    packed = (
      JSON.parse(report.slice(0, report.lastIndexOf(']') + 1)) as {
        files: { path: string }[];
      }[]
    )[0]!.files.map(file => file.path);
    const [file] = readdirSync(packs).filter(f => f.endsWith('.tgz'));
    tarball = join(packs, file!);
  }, NPM_TIMEOUT_MS);

  it('should ship LICENSE, the documents the README links and source maps that carry their sources', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'BENCHMARKS.md',
        'docs/MIGRATION.md',
        'package.json',
        'esm/index.mjs',
        'dist/src/index.js',
      ])
    );
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const [, target] of readme.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) {
      // A relative link must resolve inside the package; absolute ones are fine as they are.
      if (/^[a-z]+:/.test(target!)) continue;
      expect({ link: target, shipped: packed.includes(target!) }).toEqual({
        link: target,
        shipped: true,
      });
    }
    const maps = packed.filter(path => path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(
        readFileSync(join(ROOT, map), 'utf8')
      ) as { sources: string[]; sourcesContent?: (string | null)[] };
      // Each source is either in the map itself or shipped beside it.
      const dangling = sources.filter(
        (source, index) =>
          typeof sourcesContent?.[index] !== 'string' &&
          !packed.includes(join(map, '..', source))
      );
      expect({ map, dangling }).toEqual({ map, dangling: [] });
    }
  });

  it('should give one install command per OpenTelemetry JS line in the README, and no other', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const commands = readme.match(/^npm install otel-legacy-metrics-api\b/gm);
    expect(commands).toHaveLength(LINES.length);
  });

  afterAll(() => {
    rmSync(packs, { recursive: true, force: true });
  });

  describe.each(LINES)('beside OpenTelemetry JS $name', line => {
    const maybe = supports(line) ? it : it.skip;
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), `olma-consumer-${line.name}-`));
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' })
      );
    });

    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    maybe(
      "should install in a fresh project with the README's one command, one copy of the SDK and of the API",
      async () => {
        const fresh = mkdtempSync(join(tmpdir(), `olma-readme-${line.name}-`));
        try {
          writeFileSync(
            join(fresh, 'package.json'),
            JSON.stringify({ name: 'consumer', private: true, type: 'module' })
          );
          const install = await npmInstall(fresh, [
            tarball,
            ...readmeInstallCommand(line),
          ]);
          expect(install.output).not.toContain('ERESOLVE');
          expect(install.code).toBe(0);
          for (const [name, version] of [
            ['@opentelemetry/sdk-metrics', line.sdkVersion],
            ['@opentelemetry/api', line.apiVersion],
          ] as const) {
            const copies = [...copiesOf(fresh, name).values()];
            expect({ name, copies }).toEqual({
              name,
              copies: [expect.stringMatching(version)],
            });
          }
        } finally {
          rmSync(fresh, { recursive: true, force: true });
        }
      },
      NPM_TIMEOUT_MS
    );

    maybe(
      'should install beside the SDK and API alone, with fastify and no exporter, one copy of each',
      async () => {
        const install = await npmInstall(dir, [tarball, ...line.base]);
        expect(install.output).not.toContain('ERESOLVE');
        expect(install.code).toBe(0);
        for (const [name, version] of [
          ['@opentelemetry/sdk-metrics', line.sdkVersion],
          ['@opentelemetry/api', line.apiVersion],
        ] as const) {
          const copies = [...copiesOf(dir, name).values()];
          expect(copies).toHaveLength(1);
          expect(copies[0]).toMatch(version);
        }
        expect(copiesOf(dir, 'fastify').size).toBe(1);
        expect(copiesOf(dir, '@opentelemetry/exporter-prometheus').size).toBe(
          0
        );

        // Without the exporter, the one-call setup says what to install; without Prometheus it works.
        writeFileSync(
          join(dir, 'setup.mjs'),
          `import { createMeterProviderWithLegacyApi } from 'otel-legacy-metrics-api';
const refused = await createMeterProviderWithLegacyApi({ otlp: { enabled: false } }).then(() => 'started', e => \`\${e.name}: \${e.message}\`);
const telemetry = await createMeterProviderWithLegacyApi({ prometheus: false, otlp: { enabled: false } });
await telemetry.shutdown();
console.log(JSON.stringify({ refused, legacy: telemetry.legacyReader.constructor.name }));
`
        );
        const setup = await run(process.execPath, ['setup.mjs'], dir, 20_000);
        expect(setup.code).toBe(0);
        const result = JSON.parse(setup.output) as {
          refused: string;
          legacy: string;
        };
        expect(result.refused).toMatch(
          /^InvalidOptionError: prometheus \(on unless `prometheus: false`\) needs @opentelemetry\/exporter-prometheus, which is not installed; install the version of your OpenTelemetry JS line: /
        );
        expect(result.legacy).toBe('LegacyMetricsReader');
      },
      NPM_TIMEOUT_MS
    );

    maybe(
      "should add the README's Prometheus exporter with one copy of the SDK and run the README's usage snippets",
      async () => {
        const install = await npmInstall(dir, line.prometheus);
        expect(install.output).not.toContain('ERESOLVE');
        expect(install.code).toBe(0);
        expect(copiesOf(dir, '@opentelemetry/sdk-metrics').size).toBe(1);
        expect(copiesOf(dir, '@opentelemetry/api').size).toBe(1);

        const snippets = usageSnippets();
        expect(snippets.length).toBeGreaterThanOrEqual(3);
        for (const snippet of snippets) {
          writeFileSync(join(dir, snippet.name), snippet.source);
          const result = await run(
            process.execPath,
            [snippet.name],
            dir,
            20_000
          );
          expect({ snippet: snippet.name, ...result }).toMatchObject({
            snippet: snippet.name,
            code: 0,
          });
          expect(JSON.parse(result.output)).toMatchObject({
            host_types: ['localhost'],
          });
        }
      },
      NPM_TIMEOUT_MS
    );
  });
});
