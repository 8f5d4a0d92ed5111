import { describe, expect, it } from 'vitest';
import { renditionFor, versionFile, type WatermarkPart } from '../../scripts/trace/recording-files';
import { alignedLine, jsonLine, verdictLines } from '../../scripts/trace/report';

const part = (renditions: WatermarkPart['renditions']): WatermarkPart => ({ part: 'p1', startedAt: '2026-11-28T20:00:00.000Z', signs: '+-+-+-+-+-+-', renditions, segments: [] });

describe('the tracer’s choice of files', () => {
  it('takes the rendition nearest above the copy’s height, else the tallest; the only one without heights', () => {
    const ladder = part([{ name: 'index_0.m3u8', height: 720 }, { name: 'index_1.m3u8', height: 480 }, { name: 'index_2.m3u8', height: 360 }]);
    expect(renditionFor(ladder, 180)).toBe('index_2.m3u8');
    expect(renditionFor(ladder, 360)).toBe('index_2.m3u8');
    expect(renditionFor(ladder, 400)).toBe('index_1.m3u8');
    expect(renditionFor(ladder, 1080)).toBe('index_0.m3u8');
    expect(renditionFor(part([{ name: 'index.m3u8', height: null }]), 180)).toBe('index.m3u8');
  });

  it('names A and B as the ingest stores them: the rendition after the number with a ladder', () => {
    expect(versionFile('p1', 7, 'index_2.m3u8', 'a')).toBe('p1_00007.2.a.ts');
    expect(versionFile('p1-reencoded', 123456, 'index.m3u8', 'b')).toBe('p1-reencoded_123456.b.ts');
  });
});

describe('the tracer’s report', () => {
  const named = { code: 'K7QPXXXX', tokenId: 'tok', label: 'VIP', sessionId: '5c1fabcdefgh-2', confidence: 1, odds: 1.9e-28, agreements: 158, compared: 171, threshold: 129, candidates: 48112 };

  it('says who and how sure, as the design’s example', () => {
    expect(verdictLines(named)).toEqual([
      'best session: 5c1f…-2 of code K7QPXXXX, label "VIP", 158/171 agree (threshold 129 among 48,112 sessions)',
      'a wrong accusation: at most 1.9e-28 (48,112 × P(Bin(171, 1/2) ≥ 158))',
    ]);
    expect(jsonLine(named)).toBe('{"code":"K7QPXXXX","tokenId":"tok","label":"VIP","sessionId":"5c1fabcdefgh-2","confidence":1}');
    expect(alignedLine([{ part: '1a2b3c', first: 1204, last: 1387, from: 1204, to: 1388 }], { scale: 0.97, left: 0.012, top: 0.018 })).toBe(
      'aligned: part 1a2b3c, segments 1204–1387 (show time 00:20:04–00:23:08), crop 97.0 % at (1.2 %, 1.8 %)',
    );
  });

  it('says nobody when nobody clears the threshold', () => {
    const nobody = { ...named, code: null, tokenId: null, label: null, sessionId: null, confidence: 0, odds: 0.4, agreements: 95 };
    expect(verdictLines(nobody)[0]).toBe('nobody named: the best session has 95/171 agree (threshold 129 among 48,112 sessions)');
    expect(jsonLine(nobody)).toBe('{"code":null,"tokenId":null,"label":null,"sessionId":null,"confidence":0}');
  });
});
