import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALIDATOR_FILE } from '../../local/media-edge-runtime';
import { buildValidatorFixture, type Outcome, type ValidatorFixture } from '../support/validator-cases';

const run = promisify(execFile);
const NJS = '/usr/bin/njs';
const SHIM_DIR = fileURLToPath(new URL('../support/njs-shim', import.meta.url));

// Appended to the shipped file, so `handler` and `cf` are the file's own bindings.
// Mirrors outcomeOf() of validator-cases.ts in the njs dialect; one line per case,
// as njs cuts a console.log line at 2 KB.
const HARNESS = `
Object.assign(cf.__store, __STORE__);
var __cases = __CASES__;
async function __run() {
  for (var i = 0; i < __cases.length; i++) {
    var r = await handler({ version: '1.0', request: __cases[i].request });
    if (r.statusCode !== undefined) {
      var body = r.body ? JSON.parse(r.body.data) : {};
      var o = { status: r.statusCode };
      if (body.error) o.error = body.error;
      o.cors = !!(r.headers['access-control-allow-origin'] && r.headers['access-control-allow-origin'].value === '*');
      console.log('OUTCOME ' + JSON.stringify(o));
    } else {
      console.log('OUTCOME ' + JSON.stringify({ pass: true, uri: r.uri, query: Object.keys(r.querystring).sort() }));
    }
  }
}
__run().catch(function (e) { console.log('HARNESS ERROR ' + e.stack); });
`;

let fixture: ValidatorFixture;
let workDir: string;
beforeAll(async () => {
  fixture = await buildValidatorFixture();
  workDir = mkdtempSync(join(tmpdir(), 'edge-njs-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('edge validator under Debian njs (closest local stand-in for cloudfront-js-2.0)', () => {
  it('every case of the table gives the same outcome as in Node', async () => {
    const script = join(workDir, 'validate-request-under-test.js');
    const harness = HARNESS.replace('__STORE__', JSON.stringify(fixture.store)).replace(
      '__CASES__',
      JSON.stringify(fixture.cases.map((c) => ({ request: c.request }))),
    );
    writeFileSync(script, readFileSync(EDGE_VALIDATOR_FILE, 'utf8') + harness);
    const { stdout, stderr } = await run(NJS, ['-p', SHIM_DIR, script]);
    const lines = stdout.split('\n').filter((line) => line.startsWith('OUTCOME '));
    expect(lines.length, `njs printed:\n${stdout}\n${stderr}`).toBe(fixture.cases.length);
    const outcomes = lines.map((line) => JSON.parse(line.slice('OUTCOME '.length)) as Outcome);
    fixture.cases.forEach((testCase, i) => expect(outcomes[i], testCase.name).toEqual(testCase.expected));
  });
});
