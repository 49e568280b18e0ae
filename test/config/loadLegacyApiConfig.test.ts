import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors';
import {
  loadLegacyApiConfig,
  parseLegacyApiConfig,
} from '../../src/config/loadLegacyApiConfig';
import {
  CONFIG_DEFAULTS,
  type LegacyApiConfig,
  type ListenerConfig,
} from '../../src/config/types';

const FIXTURES = join(__dirname, 'fixtures');

const TOML_LISTENER = `
[[listen.http]]
  port = 8088
  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/api"
`;

const TERM_LISTENER = `
{listen, [{8088, http_listener, [{modules, [{"_", "/api", service_api}]}]}]}.
`;

/** The listener both snippets above describe, apart from the place. */
function snippetListener(place: string, groupPlace: string): ListenerConfig {
  return {
    port: 8088,
    ipAddress: undefined,
    ipVersion: 4,
    numAcceptors: 100,
    maxConnections: 1024,
    handlerGroups: [
      {
        host: '_',
        path: '/api',
        variant: 'host_type',
        handlers: ['service_api_metrics', 'service_api_users'],
        place: groupPlace,
      },
    ],
    place,
  };
}

describe('loadLegacyApiConfig', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'legacy-config-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('should load examples/server.toml', async () => {
    const expected: LegacyApiConfig = {
      file: 'examples/server.toml',
      format: 'toml',
      listeners: [
        {
          port: 8088,
          ipAddress: '127.0.0.1',
          ipVersion: 4,
          numAcceptors: 10,
          maxConnections: 1024,
          handlerGroups: [
            {
              host: 'localhost',
              path: '/api',
              variant: 'host_type',
              handlers: ['service_api_metrics'],
              place: 'listen.http[0].handlers.service_api[0]',
            },
          ],
          place: 'listen.http[0]',
        },
      ],
    };
    await expect(loadLegacyApiConfig('examples/server.toml')).resolves.toEqual(
      expected
    );
  });

  it('should load examples/server.cfg', async () => {
    const expected: LegacyApiConfig = {
      file: 'examples/server.cfg',
      format: 'term',
      listeners: [
        {
          port: 8088,
          ipAddress: '127.0.0.1',
          ipVersion: 4,
          numAcceptors: 10,
          maxConnections: 1024,
          handlerGroups: [
            {
              host: 'localhost',
              path: '/api',
              variant: 'host_type',
              handlers: ['service_api_metrics'],
              place: 'line 28, column 11',
            },
          ],
          place: 'line 21, column 3',
        },
      ],
    };
    await expect(loadLegacyApiConfig('examples/server.cfg')).resolves.toEqual(
      expected
    );
  });

  it('should give the same listeners for the two example files, apart from places', async () => {
    const withoutPlaces = (config: LegacyApiConfig) =>
      config.listeners.map(({ place: _place, handlerGroups, ...rest }) => ({
        ...rest,
        handlerGroups: handlerGroups.map(
          ({ place: _groupPlace, ...group }) => group
        ),
      }));
    const toml = await loadLegacyApiConfig('examples/server.toml');
    const term = await loadLegacyApiConfig('examples/server.cfg');
    expect(withoutPlaces(term)).toEqual(withoutPlaces(toml));
  });

  it('should load a whole TOML server configuration, ignoring every unrelated section', async () => {
    const config = await loadLegacyApiConfig(join(FIXTURES, 'full.toml'));
    expect(config.format).toBe('toml');
    expect(config.listeners).toEqual([
      {
        port: 5280,
        ipAddress: '127.0.0.1',
        ipVersion: 4,
        numAcceptors: 10,
        maxConnections: Infinity,
        handlerGroups: [
          {
            host: '_',
            path: '/api',
            variant: 'host_type',
            handlers: ['service_api_metrics', 'service_api_users'],
            place: 'listen.http[1].handlers.service_api[0]',
          },
        ],
        place: 'listen.http[1]',
      },
    ]);
  });

  it('should load a whole term server configuration, ignoring every unrelated term', async () => {
    const config = await loadLegacyApiConfig(join(FIXTURES, 'full.cfg'));
    expect(config.format).toBe('term');
    expect(config.listeners).toEqual([
      {
        port: 5280,
        ipAddress: '127.0.0.1',
        ipVersion: 4,
        numAcceptors: 10,
        maxConnections: Infinity,
        handlerGroups: [
          {
            host: '_',
            path: '/api',
            variant: 'host_type',
            handlers: ['service_api_metrics', 'service_api_users'],
            place: 'line 59, column 11',
          },
        ],
        place: 'line 53, column 3',
      },
    ]);
  });

  it('should load two TOML listeners, one with two handler groups and one with variant host', async () => {
    const config = await loadLegacyApiConfig(join(FIXTURES, 'multi.toml'));
    expect(config.listeners).toEqual([
      {
        port: 8088,
        ipAddress: '127.0.0.1',
        ipVersion: 4,
        numAcceptors: 100,
        maxConnections: 1024,
        handlerGroups: [
          {
            host: 'localhost',
            path: '/api',
            variant: 'host_type',
            handlers: ['service_api_metrics'],
            place: 'listen.http[0].handlers.service_api[0]',
          },
          {
            host: '_',
            path: '/metrics-api',
            variant: 'host_type',
            handlers: ['service_api_metrics', 'service_api_users'],
            place: 'listen.http[0].handlers.service_api[1]',
          },
        ],
        place: 'listen.http[0]',
      },
      {
        port: 8089,
        ipAddress: '::1',
        ipVersion: 6,
        numAcceptors: 5,
        maxConnections: Infinity,
        handlerGroups: [
          {
            host: '_',
            path: '/api',
            variant: 'host',
            handlers: ['service_api_metrics', 'service_api_users'],
            place: 'listen.http[1].handlers.service_api[0]',
          },
        ],
        place: 'listen.http[1]',
      },
    ]);
  });

  it('should load two term listeners, one with two handler groups and one with variant host', async () => {
    const config = await loadLegacyApiConfig(join(FIXTURES, 'multi.cfg'));
    expect(config.listeners).toEqual([
      {
        port: 8088,
        ipAddress: '127.0.0.1',
        ipVersion: 4,
        numAcceptors: 100,
        maxConnections: 1024,
        handlerGroups: [
          {
            host: 'localhost',
            path: '/api',
            variant: 'host_type',
            handlers: ['service_api_metrics'],
            place: 'line 7, column 11',
          },
          {
            host: '_',
            path: '/metrics-api',
            variant: 'host_type',
            handlers: ['service_api_metrics', 'service_api_users'],
            place: 'line 8, column 11',
          },
        ],
        place: 'line 5, column 3',
      },
      {
        port: 8089,
        ipAddress: '::1',
        ipVersion: 6,
        numAcceptors: 5,
        maxConnections: Infinity,
        handlerGroups: [
          {
            host: '_',
            path: '/api',
            variant: 'host',
            handlers: ['service_api_metrics', 'service_api_users'],
            place: 'line 14, column 18',
          },
        ],
        place: 'line 11, column 3',
      },
    ]);
  });

  it('should name the file and the reason when the file cannot be read', async () => {
    const missing = join(dir, 'missing.toml');
    await expect(loadLegacyApiConfig(missing)).rejects.toThrow(
      new ConfigError(
        missing,
        '',
        'found an unreadable file (ENOENT: no such file or directory), expected a readable configuration file'
      )
    );
    await expect(loadLegacyApiConfig(missing)).rejects.toBeInstanceOf(
      ConfigError
    );
  });

  it('should report a directory as unreadable', async () => {
    await expect(loadLegacyApiConfig(dir)).rejects.toThrow(
      `${dir}: found an unreadable file (EISDIR: illegal operation on a directory), expected a readable configuration file`
    );
  });

  it.each([
    ['server.toml', 'toml', TOML_LISTENER],
    ['server.TOML', 'toml', TOML_LISTENER],
    ['server.cfg', 'term', TERM_LISTENER],
    ['server.config', 'term', TERM_LISTENER],
    ['server.erl', 'term', TERM_LISTENER],
    ['server.term', 'term', TERM_LISTENER],
  ])('should read %s as %s', async (name, format, content) => {
    const file = join(dir, name);
    await writeFile(file, content);
    await expect(loadLegacyApiConfig(file)).resolves.toMatchObject({
      format,
      listeners: [{ port: 8088 }],
    });
  });

  it('should trust the extension over the content', async () => {
    const toml = join(dir, 'really-terms.toml');
    await writeFile(toml, TERM_LISTENER);
    await expect(loadLegacyApiConfig(toml)).rejects.toThrow(
      `${toml}: line 2, column 1: found invalid TOML (illegal character in key), expected valid TOML syntax`
    );
    const cfg = join(dir, 'really-toml.cfg');
    await writeFile(cfg, TOML_LISTENER);
    await expect(loadLegacyApiConfig(cfg)).rejects.toThrow(
      `${cfg}: line 2, column 9: found ., expected , or ]`
    );
  });

  it('should read an extension-less file by its content', async () => {
    const termFile = join(dir, 'server');
    await writeFile(termFile, TERM_LISTENER);
    await expect(loadLegacyApiConfig(termFile)).resolves.toEqual({
      file: termFile,
      format: 'term',
      listeners: [snippetListener('line 2, column 11', 'line 2, column 45')],
    });
    const tomlFile = join(dir, 'server.conf');
    await writeFile(tomlFile, TOML_LISTENER);
    await expect(loadLegacyApiConfig(tomlFile)).resolves.toEqual({
      file: tomlFile,
      format: 'toml',
      listeners: [
        snippetListener(
          'listen.http[0]',
          'listen.http[0].handlers.service_api[0]'
        ),
      ],
    });
  });

  it('should read a file saved with a byte order mark', async () => {
    const file = join(dir, 'bom.cfg');
    await writeFile(file, `\uFEFF${TERM_LISTENER}`);
    await expect(loadLegacyApiConfig(file)).resolves.toEqual({
      file,
      format: 'term',
      listeners: [snippetListener('line 2, column 11', 'line 2, column 45')],
    });
  });

  it('should read the example files unchanged', async () => {
    // The examples are documentation: loading must not depend on anything but their text.
    const text = await readFile('examples/server.cfg', 'utf8');
    expect(parseLegacyApiConfig(text, 'examples/server.cfg')).toEqual(
      await loadLegacyApiConfig('examples/server.cfg')
    );
  });
});

describe('parseLegacyApiConfig', () => {
  it.each([
    ['a term first', TERM_LISTENER, 'term'],
    [
      '% comment lines, then a term',
      `% Server configuration\n%% more\n\n${TERM_LISTENER}`,
      'term',
    ],
    ['a TOML table first', TOML_LISTENER, 'toml'],
    ['a # comment, then TOML', `# comment\n${TOML_LISTENER}`, 'toml'],
    ['nothing', '', 'toml'],
    ['% comment lines only', '% nothing here\n', 'term'],
  ])(
    'should detect the form of a file without a known extension from its content: %s',
    (_what, text, format) => {
      expect(parseLegacyApiConfig(text, 'server.conf').format).toBe(format);
    }
  );

  it('should read the form it is told to, whatever the file name', () => {
    expect(parseLegacyApiConfig(TERM_LISTENER, 'server.toml', 'term')).toEqual({
      file: 'server.toml',
      format: 'term',
      listeners: [snippetListener('line 2, column 11', 'line 2, column 45')],
    });
    expect(
      parseLegacyApiConfig(TOML_LISTENER, 'server.cfg', 'toml').format
    ).toBe('toml');
  });

  it.each([
    [
      'TOML',
      '[general]\n  hosts = ["localhost"]\n\n[[listen.c2s]]\n  port = 5222\n',
      'server.toml',
    ],
    [
      'TOML with only other HTTP handlers',
      '[[listen.http]]\n  port = 5280\n  [[listen.http.handlers.mod_bosh]]\n    host = "_"\n    path = "/http-bind"\n',
      'server.toml',
    ],
    [
      'term',
      '{hosts, ["localhost"]}.\n{listen, [{5222, c2s_listener, []}]}.\n',
      'server.cfg',
    ],
    ['term without a listen term', '{hosts, ["localhost"]}.\n', 'server.cfg'],
    [
      'term with only other HTTP modules',
      '{listen, [{5280, http_listener, [{modules, [{"_", "/http-bind", mod_bosh}]}]}]}.\n',
      'server.cfg',
    ],
  ])(
    'should accept a %s file with no listener of ours and return no listeners',
    (_what, text, file) => {
      expect(parseLegacyApiConfig(text, file).listeners).toEqual([]);
    }
  );

  it('should use the documented defaults', () => {
    const [listener] = parseLegacyApiConfig(
      TOML_LISTENER,
      'server.toml'
    ).listeners;
    expect(listener).toMatchObject({
      ipVersion: CONFIG_DEFAULTS.ipVersion,
      numAcceptors: CONFIG_DEFAULTS.numAcceptors,
      maxConnections: CONFIG_DEFAULTS.maxConnections,
    });
    expect(listener!.handlerGroups[0]).toMatchObject({
      variant: CONFIG_DEFAULTS.variant,
      handlers: [...CONFIG_DEFAULTS.handlers],
    });
  });

  it('should throw ConfigError with the file and place as properties', () => {
    let caught: unknown;
    try {
      parseLegacyApiConfig(
        '[[listen.http]]\nport = "x"\n[[listen.http.handlers.service_api]]\n',
        'x.toml'
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toMatchObject({
      file: 'x.toml',
      place: 'listen.http[0].port',
      code: 'LEGACY_CONFIG_INVALID',
    });
  });
});
