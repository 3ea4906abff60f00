import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { register } from 'prom-client';
import { getOrder, hostedBody, payAndRefund, postCheckout } from '../checkout/support';
import { freePort, RunningService, startService, waitFor } from '../support/service';
import { currentTestRun, portAnswers } from '../support/test-servers';

/**
 * The service behind PgBouncer in transaction mode (started here on a port of its own):
 * statements go through the pooler; LISTEN, the migration lock and BullMQ's PostgreSQL backend go
 * over DATABASE_DIRECT_URL. The main flow runs through it: checkout, payment, notification
 * verified by the worker, refund. Twice: Debian's PgBouncer 1.18, which keeps no prepared
 * statements (so they are sent unnamed), and PgBouncer 1.24 with max_prepared_statements, with
 * the service's named statements on.
 */
interface Pooler {
  binary: string;
  install: string;
  /** max_prepared_statements, and the service's named statements on; 0: sent unnamed. */
  preparedStatements: number;
  /** DATABASE_PREPARED_STATEMENTS as the service gets it; undefined leaves it at its default. */
  namedStatements?: 'true' | 'false';
}

const DEBIAN_PGBOUNCER: Pooler = {
  binary: '/usr/sbin/pgbouncer',
  install: 'apt-get install -y pgbouncer',
  preparedStatements: 0,
  namedStatements: 'false',
};
/** The same pooler with the setting forgotten: the service finds out and goes on unnamed. */
const DEBIAN_PGBOUNCER_UNTOLD: Pooler = { ...DEBIAN_PGBOUNCER, namedStatements: undefined };
const PREPARED_PGBOUNCER: Pooler = {
  binary: '/opt/pgbouncer-prepared/bin/pgbouncer',
  install: 'scripts/install-pgbouncer-prepared.sh',
  preparedStatements: 200,
  namedStatements: 'true',
};

describe.each([
  ['PgBouncer 1.18 in transaction mode, statements unnamed', DEBIAN_PGBOUNCER],
  [
    'PgBouncer 1.18 in transaction mode, DATABASE_PREPARED_STATEMENTS left at its default',
    DEBIAN_PGBOUNCER_UNTOLD,
  ],
  ['PgBouncer 1.24 in transaction mode, named statements kept by the pooler', PREPARED_PGBOUNCER],
])('through %s', (_title, pooler: Pooler) => {
  let dir: string;
  let bouncer: ChildProcess | undefined;
  let port: number;
  let service: RunningService;
  let pooledUrl: string;
  const run = currentTestRun();

  beforeAll(async () => {
    if (!existsSync(pooler.binary)) {
      throw new Error(`${pooler.binary} not found: ${pooler.install} (.ci/run installs it)`);
    }
    const server = new URL(run.databaseUrl);
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'pesapal-pgbouncer-'));
    const user = decodeURIComponent(server.username || 'postgres');
    const password = decodeURIComponent(server.password);
    writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ''}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        // 1.18 does not know the setting.
        ...(pooler.preparedStatements > 0
          ? [`max_prepared_statements = ${pooler.preparedStatements}`]
          : []),
        // Fewer server connections than the apps' pools: clients share them, as in production.
        'default_pool_size = 3',
        'max_client_conn = 200',
        `admin_users = ${user}`,
        // The apps set plan_cache_mode through the startup "options"; the pooler passes none on.
        'ignore_startup_parameters = extra_float_digits,options',
        `logfile = ${join(dir, 'pgbouncer.log')}`,
      ].join('\n'),
      { mode: 0o644 },
    );
    // PgBouncer refuses to run as root: it runs as "nobody", who reads its files and logs here.
    chmodSync(dir, 0o777);
    const asNobody = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
    const [command, ...args] = [...asNobody, pooler.binary, join(dir, 'pgbouncer.ini')];
    bouncer = spawn(command, args, { stdio: 'ignore' });
    await waitFor('pgbouncer to listen', () => portAnswers(port), 10_000);

    pooledUrl = `postgres://${user}@127.0.0.1:${port}/${run.databaseName}`;
    service = await startService({
      worker: true,
      env: {
        DATABASE_URL: pooledUrl,
        DATABASE_DIRECT_URL: run.databaseUrl,
        // Empty is unset (the default): the suite's earlier apps left theirs in process.env.
        DATABASE_PREPARED_STATEMENTS: pooler.namedStatements ?? '',
        RUN_MIGRATIONS: 'true',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    bouncer?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A command on PgBouncer's admin console. */
  async function poolerAdmin(command: string): Promise<Record<string, string>[]> {
    const admin = new Client({
      connectionString: `${pooledUrl.replace(/\/[^/]*$/, '')}/pgbouncer`,
    });
    await admin.connect();
    try {
      return (await admin.query(command)).rows as Record<string, string>[];
    } finally {
      await admin.end();
    }
  }

  /** PgBouncer's counters for the run's database. */
  async function poolerStats(): Promise<Record<string, string>> {
    const rows = await poolerAdmin('SHOW STATS');
    return rows.find((row) => row.database === run.databaseName) ?? {};
  }

  it('takes a checkout, verifies its payment through the worker and refunds it', async () => {
    const before = await poolerStats();
    // The gateway notifies; the relay (LISTEN on the direct connection) queues it at once.
    await payAndRefund(service, 'pooler e2e');
    // The statements went through the pooler.
    const after = await poolerStats();
    const carried = (name: string) => Number(after[name] ?? 0) - Number(before[name] ?? 0);
    expect(carried('total_xact_count')).toBeGreaterThan(10);
    // Named statements reach the pooler as such only when they are on.
    expect(carried('total_client_parse_count') > 0).toBe(pooler.preparedStatements > 0);
  });

  it('keeps up with concurrent checkouts and notifications sharing its server connections', async () => {
    // New server connections under the apps' pooled clients: a statement a client named before
    // does not exist on them (what a pooler in transaction mode does to named statements).
    if (!pooler.namedStatements) await poolerAdmin(`RECONNECT ${run.databaseName}`);
    const before = await poolerStats();
    const bodies = Array.from({ length: 30 }, () => hostedBody());
    const created = await Promise.all(bodies.map((body) => postCheckout(service, body)));
    expect(created.map((answer) => answer.status)).toEqual(bodies.map(() => 201));
    await Promise.all(
      created.map((answer) =>
        service.sandbox.control.settle(answer.body.order_tracking_id, 'completed', 'card'),
      ),
    );
    await waitFor(
      'every order completed',
      async () => {
        const orders = await Promise.all(
          bodies.map((body) => getOrder(service, String(body.reference))),
        );
        return orders.every((order) => order.body.status === 'completed') || null;
      },
      30_000,
      250,
    );
    if (!pooler.namedStatements) {
      // Named statements were lost along the way; the service noticed, said so and went on
      // unnamed, failing none of the requests above.
      const dropped = await register
        .getSingleMetric('database_named_statements_dropped_total')
        ?.get();
      expect(dropped?.values[0]?.value ?? 0).toBeGreaterThanOrEqual(1);
    }
    if (pooler.preparedStatements > 0) {
      // Each statement is prepared once per server connection and executed again and again.
      const after = await poolerStats();
      const carried = (name: string) => Number(after[name] ?? 0) - Number(before[name] ?? 0);
      expect(carried('total_bind_count')).toBeGreaterThan(2 * carried('total_server_parse_count'));
    }
  });
});
