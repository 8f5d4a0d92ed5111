import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../web/build';

describe('buildWeb', () => {
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'stagedoor-web-'));
    await buildWeb(out);
  });
  afterAll(() => rm(out, { recursive: true, force: true }));

  it.each([
    ['index.html', 'viewer'],
    ['admin/index.html', 'admin'],
  ])('%s points at its hashed bundle and stylesheet, which exist', async (page, name) => {
    const html = await readFile(join(out, page), 'utf8');
    const refs = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs).toEqual([expect.stringMatching(new RegExp(`^/assets/${name}-\\w+\\.css$`)), expect.stringMatching(new RegExp(`^/assets/${name}-\\w+\\.js$`))]);
    for (const ref of refs) await expect(readFile(join(out, ref))).resolves.toBeTruthy();
  });

  it('links nothing from another origin (these pages work offline from a CDN)', async () => {
    for (const page of ['index.html', 'admin/index.html']) {
      expect(await readFile(join(out, page), 'utf8')).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it('minifies the bundles and is repeatable in place', async () => {
    const before = (await readdir(join(out, 'assets'))).sort();
    const viewer = before.find((file) => /^viewer-\w+\.js$/.test(file))!;
    const code = await readFile(join(out, 'assets', viewer), 'utf8');
    expect(code.split('\n').length).toBeLessThan(50);
    await buildWeb(out);
    expect((await readdir(join(out, 'assets'))).sort()).toEqual(before);
  });
});
