/**
 * Each Lambda handler bundled with esbuild: its size, what fills it (esbuild's
 * metafile, by package) and the time a fresh Node process takes to import it
 * (a cold-start proxy; median of 5). Two variants: as shipped (the options
 * `AppFunction` hands to NodejsFunction, infra/lib/lambda-bundling.ts) and with
 * the whole AWS SDK v3 left to the nodejs22.x runtime, which provides it.
 * Run: npx tsx bench/lambda-bundles.ts
 */
import { build, type Metafile } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAMBDA_BUNDLING, lambdaBuildOptions } from '../infra/lib/lambda-bundling';
import { median, table } from './lib/stats';
import { benchmark } from './lib/cleanup';

const HANDLERS = ['public', 'admin', 'internal', 'rtmp-callback', 'edge-sync', 'recording-sweep', 'checkout-sweep', 'audience-recorder', 'job-worker', 'mailer'];
const RUNS = 5;
const TOP_PACKAGES = 6;

/** Bytes in the bundle per npm package (or per folder of ours). */
function bytesByPackage(metafile: Metafile): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.split('/').slice(0, 2).join('/');
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

async function main() {
  // Inside the project, so that externalised SDK imports resolve from node_modules as the runtime's would.
  mkdirSync('node_modules/.cache', { recursive: true });
  const outDir = mkdtempSync(join('node_modules/.cache', 'stagedoor-bundles-'));
  try {
    const rows = [];
    const contents = [];
    for (const [variant, external] of [
      ['shipped', LAMBDA_BUNDLING.externalModules],
      ['SDK from the runtime', ['@aws-sdk/*']],
    ] as const) for (const name of HANDLERS) {
      const entry = `functions/handlers/${name}.ts`;
      if (!existsSync(entry)) continue;
      const outfile = join(outDir, `${name}-${rows.length}.mjs`);
      const { metafile } = await build({ ...lambdaBuildOptions(entry, external), outfile, metafile: true });
      const script = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(outfile).href)});console.log(performance.now()-t)`;
      const times = Array.from({ length: RUNS }, () =>
        Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()),
      );
      const kb = statSync(outfile).size / 1024;
      const ms = median(times);
      rows.push({ variant, handler: name, 'bundle KB': kb, 'import ms (median)': ms, 'aim': kb < 300 && ms < 150 ? 'met' : 'missed' });
      if (variant === 'shipped') {
        const top = bytesByPackage(metafile).slice(0, TOP_PACKAGES);
        contents.push({ handler: name, 'largest parts (KB)': top.map(([pkg, bytes]) => `${pkg} ${(bytes / 1024).toFixed(0)}`).join(', ') });
      }
    }
    console.log('## Lambda bundles (esbuild, minified, node22)\n');
    console.log(table(rows));
    console.log('\n## What fills the shipped bundles\n');
    console.log(table(contents));
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

await benchmark(main);
