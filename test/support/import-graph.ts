import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A file of the tree and the files of the tree it imports (relative imports only: packages are not the tree's). */
export interface ImportGraph {
  root: string;
  imports: Map<string, string[]>;
}

const SOURCE = /\.(ts|mts|mjs|js)$/;
const SKIPPED = new Set(['node_modules', 'cdk.out', 'dist', '.git']);
/** `import … from`, `export … from`, `import('…')` and side-effect imports; `import type` counts too (it ties the files as much). */
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|[\s;(])import\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIPPED.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, into);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

function resolveImport(from: string, specifier: string): string | null {
  const bare = resolve(dirname(from), specifier.replace(/\.(js|mjs|ts)$/, ''));
  for (const candidate of [`${bare}.ts`, `${bare}.mts`, `${bare}.mjs`, `${bare}.js`, join(bare, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return null;
}

/** Reads the imports of every source file under `folders` (paths relative to `root` in the result). */
export function importGraph(root: string, folders: string[]): ImportGraph {
  const imports = new Map<string, string[]>();
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      const text = readFileSync(file, 'utf8');
      const targets = new Set<string>();
      for (const match of text.matchAll(SPECIFIER)) {
        const target = resolveImport(file, match[1] ?? match[2]!);
        if (target) targets.add(relative(root, target));
      }
      imports.set(relative(root, file), [...targets]);
    }
  }
  return { root, imports };
}

/** Every import circle of the graph, each as the files on it (Tarjan's strongly connected components of two or more files). */
export function importCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.imports.get(file) ?? []) {
      if (!graph.imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.imports.get(file) ?? []).includes(file)) circles.push(component.sort());
    }
  };
  for (const file of graph.imports.keys()) if (!index.has(file)) visit(file);
  return circles;
}
