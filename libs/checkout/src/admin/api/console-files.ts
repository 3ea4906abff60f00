import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { bundleForBrowser } from '@app/common';

/** The console's three files, as the api serves them at /admin. */
export interface ConsoleFiles {
  html: string;
  script: string;
  styles: string;
}

/** The first folder above `from` that holds `relative`, or null. */
function above(from: string, relative: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
    if (dirname(dir) === dir) return null;
  }
}

let files: Promise<ConsoleFiles> | null = null;

/**
 * The console (apps/console) as built by `npm run build` (dist/console), or, when the api runs from
 * source, bundled from it on first use; read once per process either way.
 */
export function consoleFiles(): Promise<ConsoleFiles> {
  files ??= (async () => {
    // Built code (dist/apps/api/...) serves the built console; code run from source, its source.
    const built = __dirname.includes(`${sep}dist${sep}`)
      ? above(__dirname, join('dist', 'console', 'app.js'))
      : null;
    if (built) {
      const dir = dirname(built);
      const read = (name: string) => readFileSync(join(dir, name), 'utf8');
      return { html: read('index.html'), script: read('app.js'), styles: read('app.css') };
    }
    const source = above(__dirname, join('apps', 'console', 'src'));
    if (!source) throw new Error('neither dist/console nor apps/console/src was found');
    return buildConsole(source);
  })();
  // A failed build is tried again on the next request rather than kept.
  files.catch(() => {
    files = null;
  });
  return files;
}

/** Bundles the console from its sources (also what `npm run build` writes to dist/console). */
export async function buildConsole(source: string): Promise<ConsoleFiles> {
  const { script, styles } = await bundleForBrowser(join(source, 'main.tsx'), {
    jsxImportSource: 'preact',
  });
  return {
    html: readFileSync(join(source, 'index.html'), 'utf8'),
    script,
    styles: readFileSync(join(source, 'app.css'), 'utf8') + (styles ?? ''),
  };
}
