/**
 * Builds the viewer (`/`) and the admin console (`/admin/`) into a folder of
 * static files: esbuild bundles (minified, content-hashed under `assets/`)
 * and the two HTML pages pointing at them.
 *
 *   npx tsx web/build.ts [outDir]     (default web/dist)
 *
 * Safe to run while the folder is being served or built by another process:
 * every file is written to a temporary name and renamed into place, and only
 * assets of earlier builds are removed afterwards.
 */
import { build, type Metafile } from 'esbuild';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';

const webDir = dirname(fileURLToPath(import.meta.url));

/** Each page: its entry module, its HTML template, and where the HTML goes in the output. */
const PAGES = [
  { name: 'viewer', entry: 'src/viewer/main.ts', html: 'src/viewer/index.html', out: 'index.html' },
  { name: 'admin', entry: 'src/admin/main.ts', html: 'src/admin/index.html', out: 'admin/index.html' },
] as const;

/** Assets of an earlier build older than this are removed (a page loaded just before may still fetch them). */
const STALE_ASSET_MS = 10 * 60_000;

export async function buildWeb(outDir: string): Promise<void> {
  const out = resolve(outDir);
  const result = await build({
    absWorkingDir: webDir,
    entryPoints: Object.fromEntries(PAGES.map((page) => [page.name, page.entry])),
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    sourcemap: 'linked',
    outdir: join(out, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    write: false,
    logLevel: 'warning',
    legalComments: 'linked',
  });

  const written = new Set<string>();
  for (const file of result.outputFiles) {
    await writeAtomically(file.path, file.contents);
    written.add(file.path);
  }

  for (const page of PAGES) {
    const { js, css } = outputsOf(result.metafile, page.entry, out);
    const template = await readFile(join(webDir, page.html), 'utf8');
    const html = replaceOnce(
      replaceOnce(template, `/assets/${page.name}.js`, `/${js}`),
      `/assets/${page.name}.css`,
      `/${css}`,
    );
    await writeAtomically(join(out, page.out), html);
  }

  await removeStaleAssets(join(out, 'assets'), written);
}

/** The JS and CSS files (relative to `out`, with forward slashes) built for one entry point. */
function outputsOf(metafile: Metafile, entry: string, out: string): { js: string; css: string } {
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint !== entry) continue;
    if (!output.cssBundle) throw new Error(`${entry} imports no stylesheet`);
    const rel = (p: string) => relative(out, resolve(webDir, p)).split('\\').join('/');
    return { js: rel(path), css: rel(output.cssBundle) };
  }
  throw new Error(`no output for ${entry}`);
}

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`template lacks ${from}`);
  return text.replace(from, to);
}

async function writeAtomically(path: string, contents: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

async function removeStaleAssets(assetsDir: string, keep: Set<string>): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(assetsDir)) {
    const path = join(assetsDir, name);
    if (keep.has(path)) continue;
    const info = await stat(path).catch(() => undefined);
    if (info && now - info.mtimeMs > STALE_ASSET_MS) await rm(path, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outDir = process.argv[2] ?? join(webDir, 'dist');
  const started = Date.now();
  buildWeb(outDir).then(
    () => process.stdout.write(`web pages built into ${relative(process.cwd(), resolve(outDir)) || '.'} in ${Date.now() - started} ms\n`),
    (error: unknown) => {
      process.stderr.write(`web build failed: ${error instanceof Error ? error.message : error}\n`);
      process.exit(1);
    },
  );
}
