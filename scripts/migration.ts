import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataSource } from 'typeorm';
import type { Query } from 'typeorm/driver/Query';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { buildDataSourceOptions, runMigrationsWithLock } from '@app/persistence';
import { findSchemaDrift, pendingSchemaChange, revertLastMigration } from './schema-tools';

/**
 * The migrations CLI: `generate <Name>`, `run`, `revert`, `drift`. It reads the same validated
 * configuration and data source options as the service, never process.env on its own.
 */

const MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
const USAGE = 'usage: migration.ts generate <Name> | run | revert | drift';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function withDataSource<T>(url: string, use: (ds: DataSource) => Promise<T>): Promise<T> {
  const dataSource = new DataSource(buildDataSourceOptions(url));
  await dataSource.initialize();
  try {
    return await use(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

function asCode(query: Query): string {
  const sql = query.query.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
  const params = query.parameters?.length ? `, ${JSON.stringify(query.parameters)}` : '';
  return `    await queryRunner.query(\`${sql}\`${params});`;
}

function migrationSource(className: string, up: Query[], down: Query[]): string {
  return [
    "import { MigrationInterface, QueryRunner } from 'typeorm';",
    '',
    `export class ${className} implements MigrationInterface {`,
    `  name = '${className}';`,
    '',
    '  public async up(queryRunner: QueryRunner): Promise<void> {',
    ...up.map(asCode),
    '  }',
    '',
    '  public async down(queryRunner: QueryRunner): Promise<void> {',
    // Down undoes up in reverse order.
    ...[...down].reverse().map(asCode),
    '  }',
    '}',
    '',
  ].join('\n');
}

async function generate(databaseUrl: string, name: string | undefined): Promise<number> {
  if (!name || !/^[A-Z][A-Za-z0-9]*$/.test(name)) {
    process.stderr.write('migration:generate needs a PascalCase name, e.g. AddRefunds\n');
    return 2;
  }
  const change = await withDataSource(databaseUrl, async (ds) => {
    if (await ds.showMigrations()) {
      throw new Error('the database has pending migrations: run `npm run migration:run` first');
    }
    return pendingSchemaChange(ds);
  });
  if (change.up.length === 0) {
    say('No changes: the entities match the database schema.');
    return 0;
  }
  const timestamp = Date.now();
  const className = `${name}${timestamp}`;
  const file = join(MIGRATIONS_DIR, `${timestamp}-${name}.ts`);
  writeFileSync(file, migrationSource(className, change.up, change.down));
  say(`Wrote ${relative(process.cwd(), file)} (${change.up.length} statement(s)).`);
  say(`Now add it to migrations/index.ts:`);
  say(`  import { ${className} } from './${timestamp}-${name}';`);
  say(`  and append ${className} to ALL_MIGRATIONS.`);
  return 0;
}

async function run(databaseUrl: string): Promise<number> {
  const applied = await withDataSource(databaseUrl, runMigrationsWithLock);
  say(
    applied.length > 0
      ? `Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`
      : 'Schema is up to date.',
  );
  return 0;
}

async function revert(databaseUrl: string): Promise<number> {
  await withDataSource(databaseUrl, (ds) => revertLastMigration(ds));
  say('Reverted the last applied migration.');
  return 0;
}

async function drift(databaseUrl: string): Promise<number> {
  const change = await findSchemaDrift(databaseUrl);
  if (change.up.length === 0) {
    say('No drift: migrations produce exactly the schema the entities describe.');
    return 0;
  }
  process.stderr.write(
    `Schema drift: after all migrations the entities still need ${change.up.length} statement(s):\n`,
  );
  for (const query of change.up) process.stderr.write(`  ${query.query};\n`);
  process.stderr.write('Generate a migration: npm run migration:generate -- <Name>\n');
  return 1;
}

async function main(argv: string[]): Promise<number> {
  const { databaseUrl } = loadOrExit(() => loadServiceConfig());
  const [command, name] = argv;
  switch (command) {
    case 'generate':
      return generate(databaseUrl, name);
    case 'run':
      return run(databaseUrl);
    case 'revert':
      return revert(databaseUrl);
    case 'drift':
      return drift(databaseUrl);
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
