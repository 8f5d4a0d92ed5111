import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { markBit } from '../../functions/domain/watermark';
import { WATERMARK_CHOICE_FILE } from '../support/watermark-edge';

/** Starts njs (Debian's, the stand-in for cloudfront-js-2.0): run through /work/heavy. */
const run = promisify(execFile);
const KEY = Buffer.from('an event mark key of thirty-two!');

// The bindings validate-request.js gives the snippet, in njs's dialect, then one line per case.
const PRELUDE = `
var crypto = require('crypto');
var __store = { 'w:evt-1': '${KEY.toString('base64url')}' };
var kvs = { get: async function (k) { if (!(k in __store)) throw new Error('not found'); return __store[k]; } };
function hmac(key, data) { return crypto.createHmac('sha256', key).update(data).digest(); }
`;
const harness = (cases: [string, string][]) => `
var __cases = ${JSON.stringify(cases)};
async function __run() {
  for (var i = 0; i < __cases.length; i++) {
    var uri = await markedUri(__cases[i][0], 'evt-1', __cases[i][1]);
    console.log('URI ' + uri);
  }
}
__run().catch(function (e) { console.log('HARNESS ERROR ' + e.stack); });
`;

describe("the edge's A/B choice under njs", () => {
  it('gives the same versions as the domain’s mark bit, and refuses a named version', async () => {
    const cases: [string, string][] = [];
    for (let s = 0; s < 8; s++) for (const n of [0, 5, 9, 255, 256, 257, 1000, 4321]) cases.push([`/streams/evt-1/pub1_${String(n).padStart(5, '0')}.1.w.ts`, `sess-${s}`]);
    cases.push(['/streams/evt-1/pub1_00001.a.ts', 'sess-1'], ['/streams/evt-1/index-live1.m3u8', 'sess-1']);
    const dir = mkdtempSync(join(tmpdir(), 'wm-njs-'));
    try {
      const script = join(dir, 'choice.js');
      writeFileSync(script, PRELUDE + readFileSync(WATERMARK_CHOICE_FILE, 'utf8') + harness(cases));
      const { stdout } = await run('/usr/bin/njs', [script]);
      const uris = stdout.split('\n').filter((line) => line.startsWith('URI ')).map((line) => line.slice(4));
      const expected = cases.slice(0, 64).map(([uri, sid]) => {
        const index = Number(/_([0-9]+)\.1\.w\.ts$/.exec(uri)![1]);
        return uri.replace(/w\.ts$/, markBit(KEY, sid, { part: 'pub1', index }) === 0 ? 'a.ts' : 'b.ts');
      });
      expect(uris).toEqual([...expected, 'null', '/streams/evt-1/index-live1.m3u8']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
