'use strict';
/** Small helpers for scripts/run.js: port probes, database creation, build freshness. */
const { readdirSync, statSync } = require('node:fs');
const { createConnection } = require('node:net');
const { join } = require('node:path');
const { Client } = require('pg');

function portAnswers(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function hidePassword(url) {
  return url.replace(/(\/\/[^:/@,]*:)[^@,]*@/g, '$1***@');
}

async function withClient(url, use) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` on its server when it does not exist yet. */
async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  await withClient(admin.toString(), async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      process.stdout.write(`[run]      created database ${name}\n`);
    }
  });
}

/** Fails early, with the server's own words, when the chosen database cannot be reached. */
async function checkDatabase(url) {
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
  } catch (error) {
    throw new Error(`cannot use Postgres at ${hidePassword(url)}: ${error.message}`);
  }
}

const SOURCE_DIRS = ['apps', 'libs', 'migrations'];
const SOURCE_FILES = ['tsconfig.json', 'nest-cli.json', 'package-lock.json'];

function newestSourceMtime(root) {
  let newest = 0;
  const visit = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|json)$/.test(entry.name) && !entry.name.endsWith('.spec.ts')) {
        newest = Math.max(newest, statSync(path).mtimeMs);
      }
    }
  };
  for (const dir of SOURCE_DIRS) visit(join(root, dir));
  for (const file of SOURCE_FILES) {
    try {
      newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
    } catch {
      // optional file
    }
  }
  return newest;
}

/** Why the apps must be rebuilt before starting, or null when dist is current. */
function needsBuild(root, entryFiles) {
  let oldestBuilt = Infinity;
  for (const file of entryFiles) {
    try {
      oldestBuilt = Math.min(oldestBuilt, statSync(file).mtimeMs);
    } catch {
      return 'dist is missing';
    }
  }
  return newestSourceMtime(root) > oldestBuilt ? 'sources changed since the last build' : null;
}

module.exports = { checkDatabase, ensureDatabase, hidePassword, needsBuild, portAnswers };
