/**
 * No function of the shipped code (functions, edge, ingest, infra, local mode, pages, recording, scripts) runs past
 * 100 lines: a longer one is split into named parts (docs/architecture.md). Tests and benchmarks are left out.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['functions', 'edge', 'ingest-container', 'infra', 'local', 'recording', 'scripts', 'web'];
const MAX_LINES = 100;

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'cdk.out' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, into);
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

/** Every function (declarations, methods, arrows, constructors) longer than the limit, as `file:line name (lines)`. */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.end).line - first + 1;
      const name = node.name?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : '(anonymous)');
      if (lines > MAX_LINES) found.push(`${relative(ROOT, file)}:${first + 1} ${name} (${lines})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size of functions', () => {
  it(`keeps every function of the shipped code within ${MAX_LINES} lines`, () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});
