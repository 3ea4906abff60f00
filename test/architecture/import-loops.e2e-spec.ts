import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { groupGraph, importGraph, loopsOf, sourcesUnder } from './import-graph';

const ROOT = join(__dirname, '..', '..');
const CHECKOUT = join(ROOT, 'libs', 'checkout', 'src');

/**
 * No files import each other in a loop (docs/architecture.md): lint keeps the floors
 * (eslint.config.mjs), and this keeps the loops out, within a floor and between files of one
 * folder too. Type-only imports count.
 */
describe('import loops', () => {
  const graph = importGraph(ROOT, sourcesUnder(join(ROOT, 'libs'), join(ROOT, 'apps')));
  const named = (loops: string[][]) =>
    loops.map((loop) => loop.map((file) => relative(ROOT, file)).join(' <-> '));

  it('reads the tree: the checkout library imports the orders core', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get(join(CHECKOUT, 'refunds', 'api', 'refund.service.ts'))).toContain(
      join(CHECKOUT, 'orders', 'order-journal.ts'),
    );
  });

  it('finds no files in libs/ and apps/ importing each other in a loop', () => {
    expect(named(loopsOf(graph))).toEqual([]);
  });

  it('finds no folders of libs/checkout importing each other in a loop', () => {
    const folderOf = (file: string) =>
      file.startsWith(CHECKOUT + sep) && relative(CHECKOUT, file).includes(sep)
        ? relative(CHECKOUT, file).split(sep)[0]
        : undefined;
    const folders = groupGraph(graph, folderOf);
    expect(folders.get('refunds')).toContain('orders');
    expect(loopsOf(folders).map((loop) => loop.join(' <-> '))).toEqual([]);
  });

  it('finds a loop when files make one, type-only imports and re-exports included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-loops-'));
    try {
      const files: Record<string, string> = {
        'a.ts': "import { b } from './b';\nexport const a = b;\n",
        'b.ts': "import type { C } from './c';\nexport const b: C = 1;\n",
        'c.ts': "export { a } from './a';\nexport type C = number;\n",
        'd.ts': "import { a } from './a';\nexport const d = a;\n",
        'e.ts': "import { e as self } from './e';\nexport const e = self;\n",
      };
      for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
      const loops = loopsOf(importGraph(dir, sourcesUnder(dir)));
      expect(loops.map((loop) => loop.map((file) => relative(dir, file)))).toEqual([
        ['a.ts', 'b.ts', 'c.ts'],
        ['e.ts'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
