/**
 * `npm run openapi`: writes openapi.json, the api's contract, from the controllers without starting
 * a server, and the shop client's types generated from it (openapi-typescript);
 * `npm run openapi -- --check` exits 1 when either committed file differs.
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiDocumentOffline, documentText } from '../apps/api/src/api-document';

const ROOT = join(__dirname, '..');
const DOCUMENT = join(ROOT, 'openapi.json');
const CLIENT_TYPES = join(ROOT, 'libs', 'shop-client', 'src', 'api-types.ts');

/** openapi-typescript's output for the document at `documentFile`. */
function clientTypes(documentFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-types-'));
  try {
    const out = join(dir, 'api-types.ts');
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), documentFile, '-o', out],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`openapi-typescript failed: ${run.stderr}`);
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const text = documentText(await apiDocumentOffline());
  if (process.argv.includes('--check')) {
    const stale: string[] = [];
    if (readFileSync(DOCUMENT, 'utf8') !== text) stale.push('openapi.json');
    else if (readFileSync(CLIENT_TYPES, 'utf8') !== clientTypes(DOCUMENT)) {
      stale.push('libs/shop-client/src/api-types.ts');
    }
    if (stale.length > 0) {
      process.stderr.write(
        `${stale.join(', ')} differ from the controllers: run npm run openapi\n`,
      );
      process.exit(1);
    }
    process.stdout.write('openapi.json and the shop client types match the controllers\n');
    return;
  }
  writeFileSync(DOCUMENT, text);
  writeFileSync(CLIENT_TYPES, clientTypes(DOCUMENT));
  process.stdout.write(`wrote ${DOCUMENT} and ${CLIENT_TYPES}\n`);
}

void main();
