import { parseLegacyApiConfig, type HandlerGroupConfig } from '../../src';
import {
  formatInstant,
  parseDuration,
  parseInstant,
} from '../../src/config/instants';
import { expectConfigError } from './expectConfigError';

/** A TOML file with one listener and one handler group, followed by `extra` inside the group. */
function toml(extra: string): string {
  return `[[listen.http]]
  port = 8088

  [[listen.http.handlers.service_api]]
    host = "_"
    path = "/api"
${extra}`;
}

/** A term file with one listener whose service_api group has `options`. */
function term(options: string): string {
  return `{listen, [\n{8088, http_listener, [{modules, [{"_", "/api", service_api, [${options}]}]}]}\n]}.\n`;
}

function group(text: string, file: string): HandlerGroupConfig {
  return parseLegacyApiConfig(text, file).listeners[0]!.handlerGroups[0]!;
}

const TOML_FULL = toml(`
    [listen.http.handlers.service_api.deprecation]
      since = 2026-01-01
      sunset = "2026-12-31T00:00:00Z"
      successor = "http://127.0.0.1:9464/metrics"
      documentation = "https://example.com/legacy-api-end"
      in_band = true
      enforce_sunset = true

      [[listen.http.handlers.service_api.deprecation.brownouts]]
        start = 2026-10-01T10:00:00Z
        duration = "PT30M"

      [[listen.http.handlers.service_api.deprecation.brownouts]]
        start = "2026-11-01T10:00:00+01:00"
        duration = "PT2H"
`);

const FULL = {
  since: '2026-01-01',
  sunset: '2026-12-31T00:00:00Z',
  successor: 'http://127.0.0.1:9464/metrics',
  documentation: 'https://example.com/legacy-api-end',
  inBand: true,
  enforceSunset: true,
  brownouts: [
    { start: '2026-10-01T10:00:00.000Z', duration: 'PT30M' },
    { start: '2026-11-01T10:00:00+01:00', duration: 'PT2H' },
  ],
};

describe('deprecation in configuration files', () => {
  describe('TOML', () => {
    it('should read the deprecation table and its brownouts, TOML dates included', () => {
      expect(group(TOML_FULL, 'server.toml').deprecation).toEqual(FULL);
    });

    it('should leave deprecation out when the group has none', () => {
      expect(group(toml(''), 'server.toml')).not.toHaveProperty('deprecation');
    });

    it.each<[string, string, string]>([
      [
        'no since',
        'deprecation = { sunset = 2026-01-01 }',
        'listen.http[0].handlers.service_api[0].deprecation.since: found nothing, expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
      ],
      [
        'a local date-time',
        'deprecation = { since = 2026-01-01T10:00:00 }',
        'listen.http[0].handlers.service_api[0].deprecation.since: found "2026-01-01T10:00:00.000", expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
      ],
      [
        'a sunset before since',
        'deprecation = { since = 2026-01-01, sunset = 2025-06-01 }',
        'listen.http[0].handlers.service_api[0].deprecation.sunset: found "2025-06-01", expected an instant not before since (2026-01-01T00:00:00Z)',
      ],
      [
        'a relative successor',
        'deprecation = { since = 2026-01-01, successor = "metrics" }',
        'listen.http[0].handlers.service_api[0].deprecation.successor: found "metrics", expected an absolute http or https URL',
      ],
      [
        'in_band without a sunset',
        'deprecation = { since = 2026-01-01, in_band = true }',
        'listen.http[0].handlers.service_api[0].deprecation.in_band: found true, expected false, or a sunset to go with it',
      ],
      [
        'a misspelt key',
        'deprecation = { since = 2026-01-01, enforce_sunet = true }',
        'listen.http[0].handlers.service_api[0].deprecation.enforce_sunet: found an unknown key, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts (did you mean enforce_sunset?)',
      ],
      [
        'a brownout without a duration',
        'deprecation = { since = 2026-01-01, brownouts = [{ start = 2026-02-01 }] }',
        'listen.http[0].handlers.service_api[0].deprecation.brownouts[0].duration: found nothing, expected a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
      ],
      [
        'a brownout of a month',
        'deprecation = { since = 2026-01-01, brownouts = [{ start = 2026-02-01, duration = "P1M" }] }',
        'listen.http[0].handlers.service_api[0].deprecation.brownouts[0].duration: found "P1M", expected a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
      ],
      [
        'a __proto__ table',
        'deprecation = { since = 2026-01-01, __proto__ = { sunset = 2020-01-01 } }',
        'listen.http[0].handlers.service_api[0].deprecation.__proto__: found an unknown key, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts',
      ],
      [
        'a constructor key',
        'deprecation = { since = 2026-01-01, constructor = 1 }',
        'listen.http[0].handlers.service_api[0].deprecation.constructor: found an unknown key, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts',
      ],
      [
        'a toString key in a brownout',
        'deprecation = { since = 2026-01-01, brownouts = [{ toString = 1, start = 2026-02-01, duration = "PT1H" }] }',
        'listen.http[0].handlers.service_api[0].deprecation.brownouts[0].toString: found an unknown key, expected start or duration',
      ],
      [
        'a brownout ending after the last instant a date can hold',
        'deprecation = { since = 2026-01-01, brownouts = [{ start = 9999-12-31, duration = "P100000000D" }] }',
        'listen.http[0].handlers.service_api[0].deprecation.brownouts[0].duration: found "P100000000D", expected a duration that ends the window by +275760-09-13T00:00:00Z, the latest instant a date can hold',
      ],
      [
        'a 1 MB unknown key, cut in the message',
        `deprecation = { since = 2026-01-01, ${'k'.repeat(1 << 20)} = 1 }`,
        `listen.http[0].handlers.service_api[0].deprecation.${'k'.repeat(59)}…: found an unknown key, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts`,
      ],
      [
        'a deprecation that is no table',
        'deprecation = "2026-01-01"',
        'listen.http[0].handlers.service_api[0].deprecation: found "2026-01-01", expected a table with at least "since"',
      ],
    ])('should reject %s with its key path', (_name, line, message) => {
      expectConfigError(
        () => parseLegacyApiConfig(toml(`    ${line}\n`), 'server.toml'),
        `server.toml: ${message}`
      );
    });
  });

  describe('terms', () => {
    it('should read the {deprecation, [...]} option, strings and binaries alike', () => {
      const text = term(
        '{handlers, [service_api_metrics]}, {deprecation, [' +
          '{since, "2026-01-01"}, {sunset, <<"2026-12-31T00:00:00Z">>}, ' +
          '{successor, "http://127.0.0.1:9464/metrics"}, {documentation, "https://example.com/legacy-api-end"}, ' +
          '{in_band, true}, {enforce_sunset, true}, {brownouts, [' +
          '[{start, "2026-10-01T10:00:00.000Z"}, {duration, "PT30M"}], ' +
          '[{start, "2026-11-01T10:00:00+01:00"}, {duration, "PT2H"}]]}]}'
      );
      expect(group(text, 'server.cfg').deprecation).toEqual(FULL);
    });

    it.each<[string, string, string]>([
      [
        'a bad date',
        '{deprecation, [{since, "2026-13-01"}]}',
        'line 2, column 86: found "2026-13-01" for deprecation since, expected an ISO 8601 date (2026-06-30, midnight UTC) or date-time with an offset (2026-06-30T12:00:00Z)',
      ],
      [
        'an atom for a URL',
        '{deprecation, [{since, "2026-01-01"}, {successor, prometheus}]}',
        'line 2, column 113: found prometheus for deprecation successor, expected an absolute http or https URL',
      ],
      [
        'an unknown option',
        '{deprecation, [{since, "2026-01-01"}, {sunet, "2026-02-01"}]}',
        'line 2, column 101: found unknown option sunet in deprecation, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts (did you mean sunset?)',
      ],
      [
        'an option twice',
        '{deprecation, [{since, "2026-01-01"}, {since, "2026-02-01"}]}',
        'line 2, column 101: found since a second time in deprecation, expected each option once',
      ],
      [
        'a malformed brownout',
        '{deprecation, [{since, "2026-01-01"}, {brownouts, [[{start, "2026-02-01"}, {duration, "1h"}]]}]}',
        'line 2, column 149: found "1h" for deprecation brownouts[0].duration, expected a positive ISO 8601 duration in weeks, days, hours, minutes or seconds, such as PT30M, PT2H or P1D',
      ],
      [
        'a first toString',
        '{deprecation, [{toString, 1}, {since, "2026-01-01"}]}',
        'line 2, column 78: found unknown option toString in deprecation, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts',
      ],
      [
        'a constructor',
        '{deprecation, [{since, "2026-01-01"}, {constructor, 1}]}',
        'line 2, column 101: found unknown option constructor in deprecation, expected one of since, sunset, successor, documentation, in_band, enforce_sunset, brownouts',
      ],
      [
        'a __proto__ in a brownout',
        '{deprecation, [{since, "2026-01-01"}, {brownouts, [[{\'__proto__\', []}, {start, "2026-02-01"}, {duration, "PT1H"}]]}]}',
        'line 2, column 115: found unknown option __proto__ in deprecation, expected start or duration',
      ],
      [
        'a brownout ending after the last instant a date can hold',
        '{deprecation, [{since, "2026-01-01"}, {brownouts, [[{start, "9999-12-31"}, {duration, "P100000000D"}]]}]}',
        'line 2, column 149: found "P100000000D" for deprecation brownouts[0].duration, expected a duration that ends the window by +275760-09-13T00:00:00Z, the latest instant a date can hold',
      ],
      [
        'a deprecation that is no list',
        '{deprecation, "2026-01-01"}',
        'line 2, column 77: found "2026-01-01" for deprecation, expected a list of {Name, Value} options with at least {since, Date}',
      ],
    ])('should reject %s at its line and column', (_name, option, message) => {
      expectConfigError(
        () => parseLegacyApiConfig(term(option), 'server.cfg'),
        `server.cfg: ${message}`
      );
    });
  });

  describe('value rules', () => {
    it.each<[string, number | undefined]>([
      ['2026-06-30', Date.UTC(2026, 5, 30)],
      ['2026-06-30T12:00:00Z', Date.UTC(2026, 5, 30, 12)],
      ['2026-06-30T12:00Z', Date.UTC(2026, 5, 30, 12)],
      ['2026-06-30T12:00:00.250+02:00', Date.UTC(2026, 5, 30, 10, 0, 0, 250)],
      ['2024-02-29', Date.UTC(2024, 1, 29)],
      ['2026-02-29', undefined],
      ['2026-06-30T24:00:00Z', undefined],
      ['2026-06-30T12:00:00', undefined],
      ['30/06/2026', undefined],
      ['', undefined],
    ])('should parse the instant %j', (text, ms) => {
      expect(parseInstant(text)).toBe(ms);
    });

    it.each<[string, number | undefined]>([
      ['PT30M', 1_800_000],
      ['PT2H', 7_200_000],
      ['P1D', 86_400_000],
      ['P1W', 604_800_000],
      ['P1DT1H30M0.5S', 91_800_500],
      ['PT1,5S', 1_500],
      ['P', undefined],
      ['PT', undefined],
      ['PT0S', undefined],
      ['P1M', undefined],
      ['P1Y', undefined],
      ['-PT1H', undefined],
      ['1h', undefined],
    ])('should parse the duration %j', (text, ms) => {
      expect(parseDuration(text)).toBe(ms);
    });

    it('should format instants without milliseconds when they are whole seconds', () => {
      expect(formatInstant(Date.UTC(2026, 5, 30))).toBe('2026-06-30T00:00:00Z');
      expect(formatInstant(Date.UTC(2026, 5, 30, 0, 0, 0, 5))).toBe(
        '2026-06-30T00:00:00.005Z'
      );
    });
  });
});
