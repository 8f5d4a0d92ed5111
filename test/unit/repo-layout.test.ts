import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The rules of docs/architecture.md that the source tree itself can show. */
const root = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : walk(path);
      return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
    });
  return walk(join(root, folder));
}

/** Every module a file imports (static, dynamic, require), relative ones as repository paths. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
  return specifiers.map((specifier) => (specifier.startsWith('.') ? relative(root, resolve(dirname(file), specifier)) : specifier));
}

/** `file → imported path` for each import of `from` that lands in `into`. */
function crossings(from: string, into: string): string[] {
  return sourceFiles(from).flatMap((file) =>
    importsOf(file)
      .filter((target) => target === into || target.startsWith(`${into}/`))
      .map((target) => `${relative(root, file)} → ${target}`),
  );
}

describe('repository layout', () => {
  it('functions/ and ingest-container/ import nothing from each other: the recording index they share is recording/', () => {
    expect(crossings('functions', 'ingest-container')).toEqual([]);
    expect(crossings('ingest-container', 'functions')).toEqual([]);
    expect(crossings('recording', 'functions')).toEqual([]);
    expect(crossings('recording', 'ingest-container')).toEqual([]);
    // Both sides do use it: it is the one copy of the format.
    expect(crossings('functions', 'recording')).not.toEqual([]);
    expect(crossings('ingest-container', 'recording')).not.toEqual([]);
  });

  it('local/ follows no revocation feed: the media server\'s edge state comes from edge-sync', () => {
    const followers = sourceFiles('local').filter((file) => /\/api\/revocations|revocation-feed/.test(readFileSync(file, 'utf8')));
    expect(followers.map((file) => relative(root, file))).toEqual([]);
  });

  it('no adapter file is over 300 lines', () => {
    const long = sourceFiles('functions/adapters')
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });
});
