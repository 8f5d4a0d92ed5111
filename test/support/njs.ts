import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CloudFrontRequest } from '../../local/media-edge-runtime';
import type { Outcome } from './validator-cases';

const run = promisify(execFile);
const NJS = '/usr/bin/njs';
const SHIM_DIR = fileURLToPath(new URL('./njs-shim', import.meta.url));

// Appended to the function's code, so `handler` and `cf` are the code's own bindings (a function
// without a KeyValueStore gets a `cf` of its own). Mirrors outcomeOf() of validator-cases.ts in the
// njs dialect; one line per case, as njs cuts a console.log line at 2 KB.
const HARNESS = `
var __cases = __CASES__;
async function __run() {
  for (var i = 0; i < __cases.length; i++) {
    var keys = Object.keys(cf.__store);
    for (var k = 0; k < keys.length; k++) delete cf.__store[keys[k]];
    Object.assign(cf.__store, __cases[i].store);
    var r = await handler({ version: '1.0', request: __cases[i].request });
    if (r.statusCode !== undefined) {
      var body = r.body ? JSON.parse(r.body.data) : {};
      var o = { status: r.statusCode };
      if (body.error) o.error = body.error;
      o.cors = !!(r.headers && r.headers['access-control-allow-origin'] && r.headers['access-control-allow-origin'].value === '*');
      console.log('OUTCOME ' + JSON.stringify(o));
    } else {
      console.log('OUTCOME ' + JSON.stringify({ pass: true, uri: r.uri, query: Object.keys(r.querystring).sort() }));
    }
  }
}
__run().catch(function (e) { console.log('HARNESS ERROR ' + e.stack); });
`;

const CLOUDFRONT_IMPORT = "import cf from 'cloudfront';";

/**
 * Runs a CloudFront Function's code under Debian's njs (the closest local stand-in for
 * cloudfront-js-2.0, with a small shim for the `cloudfront` module), one request per case, each
 * against its own KeyValueStore contents. Returns one outcome per case, or throws with what njs printed.
 */
export async function runUnderNjs(code: string, cases: { request: CloudFrontRequest; store?: Record<string, string> }[]): Promise<Outcome[]> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-njs-'));
  try {
    const script = join(dir, 'function-under-test.js');
    const prelude = code.startsWith(CLOUDFRONT_IMPORT) ? '' : `${CLOUDFRONT_IMPORT}\n`;
    const harness = HARNESS.replace('__CASES__', JSON.stringify(cases.map((c) => ({ request: c.request, store: c.store ?? {} }))));
    writeFileSync(script, prelude + code + harness);
    const { stdout, stderr } = await run(NJS, ['-p', SHIM_DIR, script]);
    const lines = stdout.split('\n').filter((line) => line.startsWith('OUTCOME '));
    if (lines.length !== cases.length) throw new Error(`njs gave ${lines.length} outcomes for ${cases.length} cases:\n${stdout}\n${stderr}`);
    return lines.map((line) => JSON.parse(line.slice('OUTCOME '.length)) as Outcome);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
