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

/**
 * The tables holding confirmation codes, and their indexes on the code, that exist before the
 * online migrations (the others are built by them). Not refunds' unique index: it is partial,
 * and PostgreSQL builds a partial index on a column whose type changes again.
 */
const CONFIRMATION_CODE_STORAGE = [
  'orders',
  'payment_attempts',
  'refunds',
  'subscription_charges',
  'idx_orders_confirmation_code',
  'uq_subscription_charges_confirmation_code',
];

/** The file each of these relations is in (those that exist): a rewrite gives it a new one. */
async function storageOf(dataSource: DataSource, names: string[]): Promise<Record<string, string>> {
  const rows = (await dataSource.query(
    `SELECT relname AS name, relfilenode::text AS file FROM pg_class
      WHERE relname = ANY($1) AND relnamespace = 'public'::regnamespace`,
    [names],
  )) as { name: string; file: string }[];
  return Object.fromEntries(rows.map((row) => [row.name, row.file]));
}

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
  it('build the bounded-read and money-movement indexes online on a database that already holds orders', async () => {
    // The online index migrations, from BoundedReads on, run on a database that has orders.
    const online = ALL_MIGRATIONS.findIndex((m) => new m().name === 'BoundedReads1795700000000');
    await withScratchDatabase(run.adminDatabaseUrl, 'migrations_data', async (url) => {
      const before = new DataSource({
        ...buildDataSourceOptions(url),
        migrations: ALL_MIGRATIONS.slice(0, online),
      });
      await before.initialize();
      try {
        await before.runMigrations({ transaction: 'each' });
        await before.query(
          `INSERT INTO orders (merchant_reference, kind, status, submission_status, amount,
                               currency, description, customer_email, customer_phone, version,
                               created_at, paid_at)
           SELECT 'mig-' || g, 'hosted', (ARRAY['completed','failed','pending'])[1 + g % 3],
                  'submitted', 10.00, 'KES', 'seeded', 'Buyer' || g || '@Example.com',
                  '+2547' || lpad(g::text, 8, '0'), 1, now() - make_interval(mins => g),
                  CASE WHEN g % 3 = 0 THEN now() - make_interval(mins => g) END
             FROM generate_series(1, 20000) AS g`,
        );
        // An earlier run was interrupted: its index exists but is not valid.
        await before.query('CREATE INDEX idx_orders_created ON orders (created_at, id)');
        await before.query(
          `UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'idx_orders_created'::regclass`,
        );
      } finally {
        await before.destroy();
      }

      const dataSource = new DataSource(buildDataSourceOptions(url));
      await dataSource.initialize();
      try {
        const storage = await storageOf(dataSource, CONFIRMATION_CODE_STORAGE);
        expect(Object.keys(storage)).toHaveLength(CONFIRMATION_CODE_STORAGE.length);
        // Checkouts go on while the indexes build: none waits for the migration to finish.
        let writing = true;
        let written = 0;
        const writer = (async () => {
          while (writing) {
            await dataSource.query(
              `INSERT INTO orders (merchant_reference, kind, amount, currency, description, version)
               VALUES ('live-' || gen_random_uuid(), 'hosted', 1.00, 'KES', 'live', 1)`,
            );
            written += 1;
          }
        })();
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        writing = false;
        await writer;
        expect(applied.map((m) => m.name)).toEqual(
          ALL_MIGRATIONS.slice(online).map((m) => new m().name),
        );
        expect(written).toBeGreaterThan(0);
        // Longer confirmation codes are a catalogue change: no table or index holding them was
        // rewritten (a rewrite copies every row under an exclusive lock).
        expect(await storageOf(dataSource, CONFIRMATION_CODE_STORAGE)).toEqual(storage);
        const long = `C${'7'.repeat(499)}`;
        await dataSource.query(
          `UPDATE orders SET confirmation_code = $1 WHERE merchant_reference = 'mig-3'`,
          [long],
        );
        const [stored] = (await dataSource.query(
          `SELECT id FROM orders WHERE confirmation_code = $1`,
          [long],
        )) as { id: string }[];
        expect(stored).toBeDefined();

        const invalid = (await dataSource.query(
          `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE NOT i.indisvalid`,
        )) as { relname: string }[];
        expect(invalid).toEqual([]);
        const [{ count }] = (await dataSource.query(
          `SELECT count(*)::int AS count FROM orders WHERE merchant_reference LIKE 'mig-%'`,
        )) as { count: number }[];
        expect(count).toBe(20000);
        // The expression indexes answer the search's own expressions.
        const [{ id }] = (await dataSource.query(
          `SELECT id FROM orders WHERE lower(customer_email) = lower('BUYER77@example.COM')`,
        )) as { id: string }[];
        const [phone] = (await dataSource.query(
          `SELECT id FROM orders WHERE right(regexp_replace(customer_phone, '\\D', '', 'g'), 9) = '700000077'`,
        )) as { id: string }[];
        expect(phone.id).toBe(id);
        // Finance's date indexes hold the paid orders (partial: only rows with the date).
        const paidIndex = (await dataSource.query(
          `EXPLAIN (FORMAT JSON) SELECT id FROM orders
            WHERE paid_at >= now() - interval '5 minutes' AND paid_at < now()`,
        )) as { 'QUERY PLAN': unknown }[];
        expect(JSON.stringify(paidIndex[0]['QUERY PLAN'])).toContain('idx_orders_paid_at');
        expect((await pendingSchemaChange(dataSource)).up.map((q) => q.query)).toEqual([]);
      } finally {
        await dataSource.destroy();
      }
    });
  });

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
