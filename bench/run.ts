/**
 * `npm run bench`: every benchmark under bench/, one after another, each in
 * its own process so that none disturbs another's figures. A name filter
 * runs a subset: `npm run bench -- api`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const filter = process.argv[2] ?? '';
const scripts = readdirSync('bench')
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && file.includes(filter))
  .sort();

let failed = 0;
for (const script of scripts) {
  console.log(`\n# bench/${script}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `bench/${script}`], {
    stdio: 'inherit',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  if (result.status !== 0) {
    failed++;
    console.log(`bench/${script} exited with ${result.status ?? result.signal}`);
  }
}
process.exit(failed ? 1 : 0);
