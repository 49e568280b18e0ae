import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import {
  ConfigError,
  createMeterProviderWithLegacyApi,
  InvalidOptionError,
  LegacyApiError,
  LegacyMetricsReader,
  ListenError,
  parseLegacyApiConfig,
  startLegacyMetricsServer,
} from '../src';
import { UsageError } from '../src/cli/UsageError';
import { MigrationError } from '../src/migrate/MigrationError';
import {
  describeAny,
  describeConfig,
  describeListen,
  describeMigration,
  describeOption,
} from './errorCodes';

describe('errors', () => {
  it.each([
    [
      new InvalidOptionError('m'),
      'InvalidOptionError',
      'LEGACY_INVALID_OPTION',
      'm',
    ],
    [
      new ConfigError(
        'server.toml',
        'listen.http[0].port',
        'found "x", expected an integer'
      ),
      'ConfigError',
      'LEGACY_CONFIG_INVALID',
      'server.toml: listen.http[0].port: found "x", expected an integer',
    ],
    [
      new ConfigError('server.toml', '', 'cannot read: ENOENT'),
      'ConfigError',
      'LEGACY_CONFIG_INVALID',
      'server.toml: cannot read: ENOENT',
    ],
    [
      new ListenError('cannot listen'),
      'ListenError',
      'LEGACY_LISTEN_FAILED',
      'cannot listen',
    ],
    [new UsageError('bad'), 'UsageError', 'LEGACY_USAGE', 'bad'],
  ])(
    'should give %s its name, code and message',
    (error, name, code, message) => {
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(error.message).toBe(message);
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(LegacyApiError);
    }
  );

  it('should tell the classes apart with instanceof', () => {
    expect(new ListenError('x')).not.toBeInstanceOf(ConfigError);
    expect(new ConfigError('f', 'p', 'x')).not.toBeInstanceOf(
      InvalidOptionError
    );
    expect(new Error('x')).not.toBeInstanceOf(LegacyApiError);
    expect(null).not.toBeInstanceOf(LegacyApiError);
  });

  it('should recognise an error from another copy of the package (another realm or install)', () => {
    // A structurally identical error created by a second copy carries the same Symbol.for brand.
    const brand = Symbol.for('otel-legacy-metrics-api.error');
    const foreign = Object.assign(new Error('x'), {
      name: 'ListenError',
      code: 'LEGACY_LISTEN_FAILED',
      [brand]: true,
    });
    expect(foreign).toBeInstanceOf(LegacyApiError);
    expect(foreign).toBeInstanceOf(ListenError);
    expect(foreign).not.toBeInstanceOf(ConfigError);
  });

  it('should expose the file and place of a configuration error', () => {
    const error = new ConfigError(
      'a.cfg',
      'line 3, column 7',
      'found x, expected y'
    );
    expect(error.file).toBe('a.cfg');
    expect(error.place).toBe('line 3, column 7');
  });
});

describe('typed fields', () => {
  it('should give an InvalidOptionError the option path, the value found and what was expected', async () => {
    const error = await createMeterProviderWithLegacyApi({
      legacy: { windowMs: -5 },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidOptionError);
    const invalid = error as InvalidOptionError;
    expect(invalid.code).toBe('LEGACY_INVALID_OPTION');
    expect(invalid.option).toBe('legacy.windowMs');
    expect(invalid.found).toBe(-5);
    expect(invalid.expected).toBe('a positive integer');
    expect(invalid.message).toBe(
      'legacy.windowMs: found -5, expected a positive integer'
    );
  });

  it('should give an unknown option its path and value', () => {
    let caught: unknown;
    try {
      new LegacyMetricsReader({ windowMS: 10 } as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      option: 'windowMS',
      found: 10,
      expected: expect.stringContaining('did you mean windowMs?'),
    });
  });

  it('should give a ConfigError of a term file its line and column', () => {
    let caught: unknown;
    try {
      parseLegacyApiConfig('{listen, [\n  {8088, X, []}\n]}.', 'server.cfg');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toMatchObject({
      file: 'server.cfg',
      place: 'line 2, column 10',
      line: 2,
      column: 10,
    });
  });

  it('should leave line and column undefined for a TOML key path', () => {
    let caught: unknown;
    try {
      parseLegacyApiConfig(
        '[[listen.http]]\nport = "x"\n[[listen.http.handlers.service_api]]\nhost = "_"\npath = "/api"\n',
        'server.toml'
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      file: 'server.toml',
      place: 'listen.http[0].port',
      line: undefined,
      column: undefined,
    });
  });

  describe('ListenError', () => {
    let blocker: Server | undefined;
    let reader: LegacyMetricsReader | undefined;

    afterEach(async () => {
      await reader?.shutdown();
      reader = undefined;
      await new Promise(resolve => blocker?.close(resolve) ?? resolve(null));
      blocker = undefined;
    });

    it('should carry the address, the port and the system error as cause on a port in use', async () => {
      const taken = createServer();
      blocker = taken;
      await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      reader = new LegacyMetricsReader();
      new MeterProvider({ readers: [reader] });
      const error = await startLegacyMetricsServer(reader, {
        port,
        address: '127.0.0.1',
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ListenError);
      const listen = error as ListenError;
      expect(listen.code).toBe('LEGACY_LISTEN_FAILED');
      expect(listen.address).toBe('127.0.0.1');
      expect(listen.port).toBe(port);
      expect(listen.cause.code).toBe('EADDRINUSE');
      expect(listen.message).toBe(
        `cannot listen on 127.0.0.1:${port}: EADDRINUSE`
      );
    });
  });
});

describe('codes', () => {
  /** Cases each left out of a copy of `test/errorCodes.ts`, which must then fail to type-check. */
  const MISSING = {
    LegacyApiError: "    case 'LEGACY_USAGE':\n      return 'usage';\n",
    ListenError:
      "    case 'LEGACY_LISTEN_FAILED':\n      return String(error.port);\n",
  };

  /**
   * Type-checks `test/errorCodes.ts` and, in the same program, a copy of it per entry of
   * MISSING with that case removed; returns the error messages of each file.
   */
  function typeErrors(): Map<string, string[]> {
    const file = join(__dirname, 'errorCodes.ts');
    const copies = new Map(
      Object.entries(MISSING).map(([name, missing]) => [
        join(__dirname, `errorCodes.without${name}.ts`),
        missing,
      ])
    );
    const { config } = ts.readConfigFile(
      join(__dirname, '..', 'tsconfig.json'),
      ts.sys.readFile
    );
    const { options } = ts.parseJsonConfigFileContent(
      config,
      ts.sys,
      join(__dirname, '..')
    );
    const host = ts.createCompilerHost({ ...options, noEmit: true });
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    host.readFile = name => {
      const missing = copies.get(resolve(name));
      return missing === undefined
        ? read(name)
        : read(file)?.replace(missing, '');
    };
    host.fileExists = name => copies.has(resolve(name)) || exists(name);
    const program = ts.createProgram(
      [file, ...copies.keys()],
      { ...options, noEmit: true },
      host
    );
    const errors = new Map<string, string[]>();
    for (const root of [file, ...copies.keys()]) {
      errors.set(
        root,
        ts
          .getPreEmitDiagnostics(program, program.getSourceFile(root))
          .map(d => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      );
    }
    return errors;
  }

  it('should type-check a switch that names every code of every class, and no switch that misses one', () => {
    const errors = typeErrors();
    expect(errors.get(join(__dirname, 'errorCodes.ts'))).toEqual([]);
    for (const name of Object.keys(MISSING)) {
      expect(
        errors.get(join(__dirname, `errorCodes.without${name}.ts`))
      ).toEqual([
        expect.stringMatching(/is not assignable to parameter of type 'never'/),
      ]);
    }
  });

  it('should switch over every code of every class', () => {
    expect(
      [
        new InvalidOptionError('m', {
          option: 'a.b',
          found: 1,
          expected: 'e',
        }),
        new ConfigError('f', 'p', 'x'),
        new ListenError('l'),
        new UsageError('u'),
        new MigrationError('g'),
      ].map(describeAny)
    ).toEqual(['option', 'config', 'listen', 'usage', 'migration']);
    expect(
      describeOption(
        new InvalidOptionError('m', { option: 'a.b', found: 1, expected: 'e' })
      )
    ).toBe('a.b');
    expect(describeConfig(new ConfigError('f', 'p', 'x'))).toBe('f');
    expect(
      describeListen(
        new ListenError('l', {
          address: '::1',
          port: 8088,
          cause: Object.assign(new Error('in use'), { code: 'EADDRINUSE' }),
        })
      )
    ).toBe('8088');
    expect(describeMigration(new MigrationError('g'))).toBe('g');
  });
});
