/**
 * migrate and compare against a server that answers badly on purpose: each mode ends with one
 * located line on stderr and exit 2, within the read timeout and under 300 MB, never a stack
 * trace. The built command runs as a child process, its peak memory measured by GNU time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { READ_LIMIT_VARIABLES } from '../../src/migrate/readLimits';
import { temporaryDirectory } from '../realClients/support';
import { fastestRun } from '../support/timing';
import {
  EXPOSITION_PATH,
  GROUP_PATH,
  LISTING_PATH,
  runMeasured,
  startHostileServer,
  type HostileMode,
  type HostileServer,
} from './hostileServer';

const TIMEOUT_MS = 3_000;
const IDLE_TIMEOUT_MS = 1_000;
/** Starting Node and the command, on a busy machine. */
const STARTUP_MARGIN_MS = 3_000;
/** The longest a run may take: its read timeout, and starting. */
const BOUND_MS = TIMEOUT_MS + STARTUP_MARGIN_MS;
const PEAK_MB = 300;

const CONF = [
  'Interval 10',
  '<Plugin curl_json>',
  '  <URL "http://127.0.0.1:8088/api/metrics/host_type/localhost">',
  '    <Key "metrics/*/count">',
  '      Type "derive"',
  '    </Key>',
  '  </URL>',
  '</Plugin>',
  '',
].join('\n');

type Command = 'migrate' | 'compare';

/** Each mode, the command, the path that misbehaves and the message expected after the URL. */
const CASES: readonly [HostileMode, Command, string, RegExp][] = [
  [
    'huge body',
    'migrate',
    LISTING_PATH,
    /: found a body over 8388608 bytes, expected at most 8388608 \(LEGACY_METRICS_API_MAX_BODY_BYTES sets the limit\)$/,
  ],
  [
    'huge body',
    'compare',
    EXPOSITION_PATH,
    /: found a body over 67108864 bytes, expected at most 67108864 \(LEGACY_METRICS_API_MAX_BODY_BYTES sets the limit\)$/,
  ],
  [
    'gzip bomb',
    'migrate',
    LISTING_PATH,
    /: found a body over 8388608 bytes, expected at most 8388608 /,
  ],
  [
    'gzip bomb',
    'compare',
    EXPOSITION_PATH,
    /: found a body over 67108864 bytes, expected at most 67108864 /,
  ],
  [
    'endless chunked body',
    'migrate',
    LISTING_PATH,
    /: found a body over 8388608 bytes/,
  ],
  [
    'endless chunked body',
    'compare',
    EXPOSITION_PATH,
    /: found a body over 67108864 bytes/,
  ],
  [
    'slow drip',
    'migrate',
    LISTING_PATH,
    /: found no complete answer within 3000 ms, expected one \(LEGACY_METRICS_API_READ_TIMEOUT_MS sets the limit\)$/,
  ],
  [
    'slow drip',
    'compare',
    EXPOSITION_PATH,
    /: found no complete answer within 3000 ms/,
  ],
  [
    'no answer',
    'migrate',
    LISTING_PATH,
    /: found no data for 1000 ms, expected the server to go on \(LEGACY_METRICS_API_IDLE_TIMEOUT_MS sets the limit\)$/,
  ],
  [
    'JSON null',
    'migrate',
    LISTING_PATH,
    /: found JSON null, expected a JSON object \(the legacy metrics API\)$/,
  ],
  [
    'JSON null',
    'compare',
    GROUP_PATH,
    /: found JSON null, expected a JSON object \(the legacy metrics API\)$/,
  ],
  [
    '300,000 metrics',
    'migrate',
    GROUP_PATH,
    /: found a body over 8388608 bytes, expected at most 8388608 /,
  ],
  [
    '300,000 metrics',
    'compare',
    GROUP_PATH,
    /: found a body over 8388608 bytes, expected at most 8388608 /,
  ],
  [
    'redirect to another port',
    'migrate',
    LISTING_PATH,
    /: found a redirect to http:\/\/127\.0\.0\.1:\d+\/api\/metrics, another origin; expected http:\/\/127\.0\.0\.1:\d+ \(give the URL it serves from\)$/,
  ],
  [
    'redirect to another port',
    'compare',
    EXPOSITION_PATH,
    /: found a redirect to http:\/\/127\.0\.0\.1:\d+\/metrics, another origin; expected /,
  ],
];

describe('migrate and compare against a hostile server', () => {
  const dir = temporaryDirectory('migrate-hostile-');
  let server: HostileServer;
  const conf = join(dir.path, 'collectd.conf');

  beforeAll(async () => {
    writeFileSync(conf, CONF);
    server = await startHostileServer();
  });

  afterAll(async () => {
    await server.close();
    dir.remove();
  });

  it.each(CASES)(
    'should exit 2 with one located line for a %s (%s, on the path read)',
    async (mode, command, path, message) => {
      server.set(mode, path);
      const legacy = `${server.origin}/api`;
      const prometheus = `${server.origin}${EXPOSITION_PATH}`;
      const args =
        command === 'migrate'
          ? ['migrate', conf, '--server', legacy, '--prometheus', prometheus]
          : ['compare', '--legacy', legacy, '--prometheus', prometheus];
      const env = {
        [READ_LIMIT_VARIABLES.timeoutMs]: String(TIMEOUT_MS),
        [READ_LIMIT_VARIABLES.idleTimeoutMs]: String(IDLE_TIMEOUT_MS),
      };
      // A load spike slows one start-up; a read that outlasts its timeout does so every run.
      const run = await fastestRun(
        BOUND_MS,
        () => runMeasured(args, env),
        outcome => outcome.ms
      );
      const lines = run.stderr.split('\n').filter(line => line !== '');
      expect({ code: run.code, stdout: run.stdout, lines }).toEqual({
        code: 2,
        stdout: '',
        lines: [expect.stringMatching(message)],
      });
      expect(lines[0]).toMatch(
        new RegExp(`^legacy-metrics-api: ${server.origin}${path}: found `)
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.ms).toBeLessThan(BOUND_MS);
      expect(run.peakMb).toBeLessThan(PEAK_MB);
    },
    30_000
  );
});
