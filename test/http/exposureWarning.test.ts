import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** A program that binds 0.0.0.0 through the built library, with no diag logger installed. */
const PROGRAM = `
const { MeterProvider } = require('@opentelemetry/sdk-metrics');
const { LegacyMetricsReader, startLegacyMetricsServer } = require('./dist/src');
const reader = new LegacyMetricsReader();
new MeterProvider({ readers: [reader] });
startLegacyMetricsServer(reader, { port: 0, address: '0.0.0.0' }).then(server => server.close());
`;

function run(flags: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [...flags, '-e', PROGRAM],
      { cwd: ROOT, timeout: 20_000 },
      (error, _stdout, stderr) => (error === null ? done(stderr) : fail(error))
    );
  });
}

describe('the exposure warning', () => {
  it('should be printed on stderr by Node when a library user binds 0.0.0.0 without a diag logger', async () => {
    const stderr = await run([]);
    expect(stderr).toMatch(
      /\[LEGACY_API_EXPOSED\] LegacyMetricsApiWarning: legacy metrics API bound to 0\.0\.0\.0:\d+: it has no authentication/
    );
  });

  it('should be silenced by --no-warnings', async () => {
    expect(await run(['--no-warnings'])).not.toContain('LEGACY_API_EXPOSED');
  });
});
