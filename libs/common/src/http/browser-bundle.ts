import { build } from 'esbuild';

/**
 * One browser script (and its style sheet) from a TypeScript or TSX entry and what it imports, for
 * the pages the service serves itself (the operators' console): ES2020, minified, self-contained
 * files, so a strict Content-Security-Policy (`script-src 'self'`) holds.
 */
export async function bundleForBrowser(
  entry: string,
  options: { jsxImportSource?: string } = {},
): Promise<{ script: string; styles: string | null }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    logLevel: 'silent',
    ...(options.jsxImportSource
      ? { jsx: 'automatic' as const, jsxImportSource: options.jsxImportSource }
      : {}),
  });
  const text = (extension: string) =>
    result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? null;
  return { script: text('.js') ?? '', styles: text('.css') };
}
