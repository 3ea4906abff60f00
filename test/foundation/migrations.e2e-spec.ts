import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import { buildDataSourceOptions, ENTITIES } from '@app/persistence';
import {
  findSchemaDrift,
  pendingSchemaChange,
  revertAllMigrations,
  withScratchDatabase,
} from '../../scripts/schema-tools';
import { currentTestRun } from '../support/test-servers';

const run = currentTestRun();

async function publicTables(dataSource: DataSource): Promise<string[]> {
  const rows = (await dataSource.query(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  )) as { table_name: string }[];
  return rows.map((row) => row.table_name);
}

/** An entity no migration creates, to prove the drift check can fail. */
@Entity('drift_probe')
class DriftProbe {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  note!: string;
}

describe('migrations', () => {
  it('run from empty to head, match the entities, and revert back down to empty', async () => {
    await withScratchDatabase(run.adminDatabaseUrl, 'migrations', async (url) => {
      expect(url).toMatch(/test/);
      const dataSource = new DataSource(buildDataSourceOptions(url));
      await dataSource.initialize();
      try {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        expect(applied.map((m) => m.name)).toEqual(ALL_MIGRATIONS.map((M) => new M().name));
        expect(await dataSource.showMigrations()).toBe(false);
        // Every entity has its table once all migrations ran.
        const tables = await publicTables(dataSource);
        for (const entity of ENTITIES) {
          expect(tables).toContain(dataSource.getMetadata(entity).tableName);
        }
        expect((await pendingSchemaChange(dataSource)).up.map((q) => q.query)).toEqual([]);

        expect(await revertAllMigrations(dataSource)).toBe(ALL_MIGRATIONS.length);
        expect(await publicTables(dataSource)).toEqual(['schema_migrations']);

        // Down really undid up: the whole chain applies again from scratch.
        const reapplied = await dataSource.runMigrations({ transaction: 'each' });
        expect(reapplied).toHaveLength(ALL_MIGRATIONS.length);
      } finally {
        await dataSource.destroy();
      }
    });
  });

  it('the drift check finds nothing for the real entities', async () => {
    const drift = await findSchemaDrift(run.adminDatabaseUrl);
    expect(drift.up.map((q) => q.query)).toEqual([]);
  });

  it('the drift check reports an entity that no migration creates', async () => {
    const drift = await findSchemaDrift(run.adminDatabaseUrl, (url) => ({
      ...buildDataSourceOptions(url),
      entities: [...ENTITIES, DriftProbe],
    }));
    expect(drift.up.map((q) => q.query)).toEqual([
      expect.stringContaining('CREATE TABLE "drift_probe"'),
    ]);
  });
});
