/**
 * `legacy-metrics-api migrate COLLECTD_CONF [--legacy URL] [--prometheus URL] [--out DIR]`: turns
 * a collectd curl_json poller's configuration into a Prometheus configuration, recording rules
 * that reproduce every legacy key it reads, and a report.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCurlJsonPoller } from '../migrate/curlJsonPoller';
import { MIGRATION_FILES, migrationFiles } from '../migrate/migrationFiles';
import { readMigrationInputs } from '../migrate/migrationInputs';
import { planMigration } from '../migrate/migrationPlanner';
import { type CliCommand, printUsage } from './cliCommand';
import { LEGACY_URL_OPTIONS, legacyUrlOf } from './legacyUrlOption';
import { parseCommandLine } from './parseCommandLine';
import { UsageError } from './UsageError';

/** `migrate --help`. */
export const MIGRATE_USAGE = `Usage: legacy-metrics-api migrate COLLECTD_CONF [--legacy URL] [--prometheus URL] [--out DIR]

Reads the curl_json <URL> blocks of a collectd configuration and writes prometheus.yml (a scrape
job at the poller's interval, loading rules.yml), rules.yml (recording rules
legacy:<name>:<key> that reproduce each legacy key the poller reads, per host type) and
report.txt (what was mapped, URL by URL, what was not, and the pitfalls of the file).

Options:
  --legacy URL      the legacy API's base, e.g. http://127.0.0.1:8088/api: expand wildcards over
                    what it serves and flag keys and host types it does not (without it, the
                    result is partial; alias: --server)
  --prometheus URL  the server's Prometheus endpoint (default: the legacy URLs' host, port 9464,
                    /metrics); read with --legacy to map names that attributes form and check
                    histogram buckets
  --out DIR         write the three files into DIR (default: print them, each under a header)
  -h, --help        Show this help`;

/** Runs `migrate`; resolves to the exit status. */
export const migrateCommand: CliCommand = async (args, { out }) => {
  const { values, positional } = parseCommandLine('migrate', args, {
    options: {
      ...LEGACY_URL_OPTIONS,
      prometheus: { type: 'string' },
      out: { type: 'string' },
    },
    positional: { name: 'COLLECTD_CONF', required: '' },
    parseArgsMessages: true,
  });
  if (values.help === true) return printUsage(out, MIGRATE_USAGE);
  const legacy = legacyUrlOf('migrate', values);
  const { prometheus, out: dir } = values as Record<string, string | undefined>;
  for (const [name, value] of Object.entries({ prometheus, out: dir }))
    if (value === '')
      throw new UsageError(
        `migrate: found an empty --${name}, expected a value`
      );
  const poller = readCurlJsonPoller(positional!);
  const inputs = await readMigrationInputs(poller, { legacy, prometheus });
  const plan = planMigration(poller, inputs);
  const files = migrationFiles(plan);
  if (dir === undefined) {
    for (const name of MIGRATION_FILES) {
      out(`==> ${name} <==`);
      out(files[name].replace(/\n$/, ''));
    }
    return 0;
  }
  try {
    mkdirSync(dir, { recursive: true });
    for (const name of MIGRATION_FILES)
      writeFileSync(join(dir, name), files[name]);
  } catch (error) {
    throw new UsageError(
      `migrate: --out ${dir}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), expected a writable directory`
    );
  }
  out(`wrote ${MIGRATION_FILES.map(name => join(dir, name)).join(', ')}`);
  return 0;
};
