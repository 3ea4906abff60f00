import 'reflect-metadata';
import { Client } from 'pg';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { ALL_MIGRATIONS } from '../migrations';

/**
 * `npm run restore:check -- [--api <url>] [--audit-head <seq>:<hash>]`: the checks of a restored
 * database (docs/operations.md, "Checking a restore"), with the service's configuration
 * (DATABASE_URL, and ADMIN_API_KEYS for the api's checks). Prints one JSON report and exits 1
 * when the restore must not take traffic: still recovering, a migration of this release missing
 * or unknown, or the audit chain broken. Reconciliation's mismatches are reported, not failed:
 * after a restore to an earlier point they are the orders the gateway settled since (sync each).
 */

interface DatabaseReport {
  database: { in_recovery: boolean; timeline: number };
  migrations: { applied: number; release: number; missing: string[]; unknown: string[] };
  orders: Record<string, number>;
  newest: Record<string, string | null>;
  open_payments_without_an_order: number;
}

interface ApiReport {
  audit: { ok?: boolean };
  reconciliation: { mismatch_count: number; mismatched: string[] };
}

function option(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

async function databaseChecks(url: string, problems: string[]): Promise<DatabaseReport> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const one = async <T>(sql: string) => (await client.query(sql)).rows[0] as T;
  try {
    const database = await one<DatabaseReport['database']>(
      `SELECT pg_is_in_recovery() AS in_recovery, timeline_id AS timeline FROM pg_control_checkpoint()`,
    );
    if (database.in_recovery) problems.push('the server is still in recovery');

    const applied = (await client.query(`SELECT name FROM schema_migrations`)).rows.map(
      (row: { name: string }) => row.name,
    );
    const release = ALL_MIGRATIONS.map((migration) => new migration().name ?? migration.name);
    const migrations = {
      applied: applied.length,
      release: release.length,
      missing: release.filter((name) => !applied.includes(name)),
      unknown: applied.filter((name) => !release.includes(name)),
    };
    if (migrations.missing.length > 0) {
      problems.push('migrations of this release are missing: run the migrations Job');
    }
    if (migrations.unknown.length > 0) {
      problems.push('migrations this release does not know: a newer release wrote them');
    }

    const statuses = await client.query(
      `SELECT status, count(*)::int AS n FROM orders GROUP BY status ORDER BY status`,
    );
    const orders = Object.fromEntries(
      statuses.rows.map((row: { status: string; n: number }) => [row.status, row.n]),
    );
    // Each close to the restore's target, and never after it.
    const newest = await one<DatabaseReport['newest']>(
      `SELECT (SELECT max(created_at) FROM orders) AS order,
              (SELECT max(received_at) FROM ipn_notifications) AS notification,
              (SELECT max(created_at) FROM refunds) AS refund,
              (SELECT max(created_at) FROM outbox_events) AS merchant_event,
              (SELECT max("at") FROM audit_events) AS audit_event`,
    );
    const open = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM unmatched_payments WHERE status = 'open'`,
    );
    return { database, migrations, orders, newest, open_payments_without_an_order: open.n };
  } finally {
    await client.end();
  }
}

/** The service's own checks, through its admin api (running on the restored database). */
async function apiChecks(
  api: string,
  key: string,
  head: string | undefined,
  problems: string[],
): Promise<ApiReport> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const anchor = head?.match(/^(\d+):([0-9a-f]+)$/);
  if (head && !anchor) throw new Error('--audit-head must be <seq>:<hash>, as verify answered it');
  const query = anchor ? `?seq=${anchor[1]}&hash=${anchor[2]}` : '';
  const verify = await fetch(`${api}/v1/admin/audit/verify${query}`, { headers });
  const audit = (await verify.json()) as ApiReport['audit'];
  if (audit.ok !== true) problems.push('the audit chain does not verify');

  const reconcile = await fetch(`${api}/v1/admin/reconcile`, {
    method: 'POST',
    headers,
    body: '{}',
  });
  if (!reconcile.ok) throw new Error(`POST /v1/admin/reconcile answered ${reconcile.status}`);
  const found = (await reconcile.json()) as {
    mismatch_count: number;
    gateway_mismatches: { reference: string }[];
  };
  return {
    audit,
    reconciliation: {
      mismatch_count: found.mismatch_count,
      mismatched: found.gateway_mismatches.map((mismatch) => mismatch.reference),
    },
  };
}

async function main(argv: string[]): Promise<number> {
  const config = loadOrExit(() => loadServiceConfig());
  const problems: string[] = [];
  const database = await databaseChecks(config.databaseUrl, problems);
  const api = option(argv, '--api');
  let service: ApiReport | undefined;
  if (api) {
    const entry = config.adminApiKeys[0];
    if (!entry) throw new Error('--api needs an admin key: set ADMIN_API_KEYS');
    const key = entry.includes(':') ? entry.slice(entry.indexOf(':') + 1) : entry;
    service = await apiChecks(api.replace(/\/$/, ''), key, option(argv, '--audit-head'), problems);
  }
  const report = { ok: problems.length === 0, problems, ...database, ...service };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`restore:check failed: ${error.message}\n`);
    process.exit(2);
  },
);
