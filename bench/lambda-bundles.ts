/**
 * Each Lambda handler bundled with esbuild (minified): its size and the time
 * a fresh Node process takes to import it (a cold-start proxy; median of 5).
 * Two variants: as shipped (AWS SDK v3 left to the nodejs22.x runtime, which
 * provides it, as CDK's NodejsFunction does by default) and with everything inlined.
 * Run: npx tsx bench/lambda-bundles.ts
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, table } from './lib/stats';

const HANDLERS = ['public', 'admin', 'internal', 'rtmp-callback', 'edge-sync'];
const RUNS = 5;

async function main() {
  // Inside the project, so that externalised SDK imports resolve from node_modules as the runtime's would.
  mkdirSync('node_modules/.cache', { recursive: true });
  const outDir = mkdtempSync(join('node_modules/.cache', 'stagedoor-bundles-'));
  try {
    const rows = [];
    for (const [variant, external] of [
      ['shipped (SDK from runtime)', ['@aws-sdk/*']],
      ['all inlined', []],
    ] as const) for (const name of HANDLERS) {
      const entry = `functions/handlers/${name}.ts`;
      if (!existsSync(entry)) continue;
      const outfile = join(outDir, `${name}-${external.length}.mjs`);
      await build({
        external: [...external],
        entryPoints: [entry],
        outfile,
        bundle: true,
        minify: true,
        platform: 'node',
        target: 'node22',
        format: 'esm',
        // Lets bundled CommonJS dependencies call require() inside an ES module.
        banner: { js: "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);" },
        logLevel: 'error',
      });
      const script = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(outfile).href)});console.log(performance.now()-t)`;
      const times = Array.from({ length: RUNS }, () =>
        Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()),
      );
      const kb = statSync(outfile).size / 1024;
      const ms = median(times);
      rows.push({ variant, handler: name, 'bundle KB': kb, 'import ms (median)': ms, 'aim': kb < 300 && ms < 150 ? 'met' : 'missed' });
    }
    console.log('## Lambda bundles (esbuild, minified, node22)\n');
    console.log(table(rows));
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
