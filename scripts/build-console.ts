/**
 * Part of `npm run build`: the operators' console (apps/console) bundled into dist/console, which
 * the built api serves at /admin.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsole } from '../libs/checkout/src/admin/api/console-files';

async function main(): Promise<void> {
  const root = join(__dirname, '..');
  const files = await buildConsole(join(root, 'apps', 'console', 'src'));
  const out = join(root, 'dist', 'console');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.html'), files.html);
  writeFileSync(join(out, 'app.js'), files.script);
  writeFileSync(join(out, 'app.css'), files.styles);
  console.log(`wrote ${out} (app.js ${Math.round(files.script.length / 1024)} KiB)`);
}

void main();
