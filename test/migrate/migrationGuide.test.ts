/**
 * docs/MIGRATION.md's reference tables and PromQL are generated from the naming rules
 * (src/reader/naming.ts, src/migrate/prometheusNames.ts and legacyKeyQuery.ts): the file must
 * hold what they give now. To update it after a change of the rules:
 * UPDATE_MIGRATION_GUIDE=1 npx jest test/migrate/migrationGuide.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  migrationGuideSections,
  regenerateMigrationGuide,
} from './migrationGuideSections';

const GUIDE = join(__dirname, '..', '..', 'docs', 'MIGRATION.md');

describe('docs/MIGRATION.md', () => {
  it('should hold the sections that the naming rules generate', () => {
    const text = readFileSync(GUIDE, 'utf8');
    const regenerated = regenerateMigrationGuide(text);
    if (process.env.UPDATE_MIGRATION_GUIDE === '1' && regenerated !== text)
      writeFileSync(GUIDE, regenerated);
    else expect(text).toBe(regenerated);
    for (const name of Object.keys(migrationGuideSections()))
      expect(text).toContain(`<!-- generated: ${name} -->`);
  });

  it('should map the demo histogram to the family the exporter names, with its attribute', () => {
    const { 'key-queries': queries, 'series-names': series } =
      migrationGuideSections();
    expect(series).toContain('`backends_auth_count{operation="authorize"}`');
    expect(series).toContain(
      'ObservableGauge `nodeUpTime`, unit `s` | gauge `nodeUpTime` | `nodeUpTime` | gauge |'
    );
    expect(queries).toContain(
      'backends_auth_count{operation="authorize", host_type="localhost"}'
    );
    expect(queries).not.toContain('backends_auth_authorize');
  });
});
