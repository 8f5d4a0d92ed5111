import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildWeb } from '../../web/build';

/**
 * Builds the viewer and admin pages into `<outdir>/web-build` (a fresh folder each
 * time, so no stale asset of an earlier build is deployed) and returns its path.
 */
export async function buildWebAssets(outdir: string): Promise<string> {
  const dir = join(outdir, 'web-build');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await buildWeb(dir);
  return dir;
}
