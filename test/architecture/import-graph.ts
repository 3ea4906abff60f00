import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as ts from 'typescript';

/** Every .ts and .tsx source under the folders (build output and packages aside). */
export function sourcesUnder(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        return ['node_modules', 'dist'].includes(name) ? [] : sourcesUnder(path);
      }
      return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
    }),
  );
}

/** The file an import names, if it is one of ours: a relative path, or @app/<lib>[/path]. */
function resolveImport(root: string, from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('.')) {
    base = resolve(dirname(from), specifier);
  } else {
    const alias = /^@app\/([a-z-]+)(?:\/(.*))?$/.exec(specifier);
    if (!alias) return undefined;
    base = join(root, 'libs', alias[1], 'src', alias[2] ?? '');
  }
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find(
    (candidate) => existsSync(candidate),
  );
}

/**
 * Each file and the files it imports: static imports, type-only ones and re-exports, require()
 * and import(), as far as they name a file of ours. A type-only import counts: a loop of types
 * ties the files together for every reader as much as one of values.
 */
export function importGraph(root: string, files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const imported = importedFiles
      .map(({ fileName }) => resolveImport(root, file, fileName))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(imported)]);
  }
  return graph;
}

/**
 * Every loop: each set of nodes that reach one another through their edges (Tarjan's strongly
 * connected components of more than one node), and each node that names itself. Sorted.
 */
export function loopsOf(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, order.size);
    lowest.set(node, order.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!order.has(next)) {
        visit(next);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(next)!));
      } else if (onStack.has(next)) {
        lowest.set(node, Math.min(lowest.get(node)!, order.get(next)!));
      }
    }
    if (lowest.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
      loops.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return loops.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The graph between groups of files (a file's group by `groupOf`; files of no group left out). */
export function groupGraph(
  graph: Map<string, string[]>,
  groupOf: (file: string) => string | undefined,
): Map<string, string[]> {
  const groups = new Map<string, Set<string>>();
  for (const [file, imported] of graph) {
    const from = groupOf(file);
    if (from === undefined) continue;
    const targets = groups.get(from) ?? new Set<string>();
    groups.set(from, targets);
    for (const target of imported) {
      const to = groupOf(target);
      if (to !== undefined && to !== from) targets.add(to);
    }
  }
  return new Map([...groups].map(([group, targets]) => [group, [...targets]]));
}
