/**
 * The import structure as docs/architecture.md draws it: no import circle anywhere in the tree, and the
 * domain's areas (functions/domain/<area>/) importing each other only through their entries, downwards.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from '../support/import-graph';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const graph = importGraph(ROOT, ['functions', 'edge', 'ingest-container', 'infra', 'local', 'recording', 'web', 'scripts', 'bench', 'harness', 'test']);

/** Lowest first: an area may import the areas before it, never one after it (watermark imports none). */
const AREAS = ['watermark', 'audit', 'events', 'codes', 'access', 'staff', 'streams', 'audience', 'commerce', 'jobs'];
const DOMAIN = 'functions/domain/';
/**
 * Outside the domain but pure, and shared with the ingest (which may not import functions/): the mark's
 * pattern, which the ingest draws into A and B and the tracer reads back, and the recording index's part
 * record, which the ingest writes and the tracer reads. They import nothing but node:crypto.
 */
const SHARED_PURE = ['recording/watermark-pattern.ts', 'recording/part-record.ts'];

function areaOf(file: string): string | null {
  if (!file.startsWith(DOMAIN)) return null;
  const [first, second] = file.slice(DOMAIN.length).split('/');
  return second === undefined ? 'shared' : first!;
}

/** Every import from one domain file to another, with both ends' areas (`shared` for the modules at the top). */
function domainImports() {
  return [...graph.imports].flatMap(([file, targets]) =>
    targets.flatMap((target) => {
      const from = areaOf(file);
      const to = areaOf(target);
      return from && to && from !== to ? [{ file, target, from, to }] : [];
    }),
  );
}

describe('the import structure', () => {
  it('has no import circle', () => {
    expect(graph.imports.size).toBeGreaterThan(400);
    expect(importCircles(graph)).toEqual([]);
  });

  it('has every area of the domain and no other folder there', () => {
    const folders = new Set([...graph.imports.keys()].map(areaOf).filter((area) => area && area !== 'shared'));
    expect([...folders].sort()).toEqual([...AREAS].sort());
  });

  it('keeps the shared modules at the top of the domain free of every area', () => {
    expect(domainImports().filter(({ from }) => from === 'shared')).toEqual([]);
  });

  it('lets an area import another only through its entry, and only one below it', () => {
    const crossings = domainImports().filter(({ from, to }) => from !== 'shared' && to !== 'shared');
    expect(crossings.length).toBeGreaterThan(20);
    expect(crossings.filter(({ target, to }) => target !== `${DOMAIN}${to}/index.ts`)).toEqual([]);
    expect(crossings.filter(({ from, to }) => AREAS.indexOf(to) > AREAS.indexOf(from))).toEqual([]);
  });

  it('lets benchmarks share with the tests only what lives in harness/', () => {
    const benchImports = [...graph.imports].filter(([file]) => file.startsWith('bench/')).flatMap(([, targets]) => targets);
    expect(benchImports.filter((target) => target.startsWith('harness/')).length).toBeGreaterThan(10);
    expect(benchImports.filter((target) => target.startsWith('test/'))).toEqual([]);
    const harnessImports = [...graph.imports].filter(([file]) => file.startsWith('harness/')).flatMap(([, targets]) => targets);
    expect(harnessImports.filter((target) => target.startsWith('test/') || target.startsWith('bench/'))).toEqual([]);
  });

  it('keeps the domain free of the AWS SDK and of the adapters', () => {
    const domainFiles = [...graph.imports.keys()].filter((file) => file.startsWith(DOMAIN));
    expect(domainFiles.filter((file) => /from '@aws-sdk\//.test(readFileSync(`${ROOT}/${file}`, 'utf8')))).toEqual([]);
    expect(domainFiles.flatMap((file) => graph.imports.get(file)!.filter((target) => !target.startsWith(DOMAIN) && !SHARED_PURE.includes(target)))).toEqual([]);
    for (const file of SHARED_PURE) {
      expect([...readFileSync(`${ROOT}/${file}`, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]).filter((from) => from !== 'node:crypto')).toEqual([]);
    }
  });
});
