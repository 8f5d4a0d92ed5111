import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markBit } from '../../functions/domain/watermark';
import { EDGE_VALIDATOR_FILE } from '../../local/media-edge-runtime';
import { loadWatermarkChoice, WATERMARK_CHOICE_FILE } from '../support/watermark-edge';

const KEY = Buffer.from('an event mark key of thirty-two!');
const store = new Map([['w:evt-1', KEY.toString('base64url')]]);

describe("the edge's A/B choice (edge/watermark-choice.js) in Node", () => {
  const markedUri = loadWatermarkChoice(store);

  it('serves each session the version of the domain’s mark bit, the same in every rendition', async () => {
    for (let s = 0; s < 20; s++) {
      for (const n of [0, 1, 7, 8, 255, 256, 300, 511, 512, 9999, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]) {
        const moment = `pub1-part2_${String(n).padStart(5, '0')}`;
        const version = markBit(KEY, `sess-${s}`, { part: 'pub1-part2', index: n }) === 0 ? 'a' : 'b';
        expect(await markedUri(`/streams/evt-1/${moment}.w.ts`, 'evt-1', `sess-${s}`)).toBe(`/streams/evt-1/${moment}.${version}.ts`);
        expect(await markedUri(`/streams/evt-1/${moment}.2.w.ts`, 'evt-1', `sess-${s}`)).toBe(`/streams/evt-1/${moment}.2.${version}.ts`);
      }
    }
  });

  it('leaves other files alone and refuses a version named directly', async () => {
    expect(await markedUri('/streams/evt-1/pub1_00001.ts', 'evt-1', 'sess-1')).toBe('/streams/evt-1/pub1_00001.ts');
    expect(await markedUri('/streams/evt-1/index-live1.m3u8', 'evt-1', 'sess-1')).toBe('/streams/evt-1/index-live1.m3u8');
    expect(await markedUri('/streams/evt-1/pub1_00001.a.ts', 'evt-1', 'sess-1')).toBeNull();
    expect(await markedUri('/streams/evt-1/pub1_00001.0.b.ts', 'evt-1', 'sess-1')).toBeNull();
  });

  it('fails (so the validator denies) when the event has no mark key', async () => {
    await expect(markedUri('/streams/evt-2/pub1_00001.w.ts', 'evt-2', 'sess-1')).rejects.toThrow(/not found/);
  });

  it('fits beside the validator under the 10 KB CloudFront Functions limit, comments and all', () => {
    const total = statSync(EDGE_VALIDATOR_FILE).size + statSync(WATERMARK_CHOICE_FILE).size;
    expect(total).toBeLessThan(10 * 1024 - 400);
    expect(readFileSync(WATERMARK_CHOICE_FILE, 'utf8')).not.toMatch(/\b(import|require|export)\b/);
  });
});
