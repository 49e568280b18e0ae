import {
  ConfigError,
  InvalidOptionError,
  LegacyApiError,
  ListenError,
} from '../src';
import { UsageError } from '../src/cli/UsageError';

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
