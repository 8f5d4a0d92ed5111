/**
 * The audience on the in-memory stores: viewers go through the use cases (validate, heartbeats with
 * quality reports, release, a time-out taken over), each write's code before and after is handed to
 * the audience recorder as the stream would hand it, and the console's reports read the result.
 */
import { describe, expect, it } from 'vitest';
import type { CodeChange } from '../../functions/domain/audience';
import { airChangesOf, bitrateClass, effectsOfCodeChange } from '../../functions/domain/audience';
import { recordAudience } from '../../functions/domain/audience';
import { audienceReport, ticketWatching, troubleCsv, troubleList } from '../../functions/domain/audience';
import { parseQualityReport } from '../../functions/domain/playback-quality';
import { bucketValue, mergeSketch, sketchBucket, sketchQuantile, type Sketch } from '../../functions/domain/audience';
import { heartbeat, releasePlayback, validateCode } from '../../functions/domain/access';
import { PLAYBACK_BASE_URL, domainFixture, refusal, type DomainFixture } from '../support/domain-fixture';
import { sampleCode, sampleEvent } from '../support/store-records';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('quantile sketch', () => {
  it('answers quantiles within ±5 % of the exact values, also after merging', () => {
    const values = Array.from({ length: 2000 }, (_, i) => 200 + ((i * 7919) % 4000));
    const sketch: Sketch = new Map();
    const halves: Sketch[] = [new Map(), new Map()];
    values.forEach((value, i) => {
      mergeSketch(sketch, [[sketchBucket(value), 1]]);
      mergeSketch(halves[i % 2]!, [[sketchBucket(value), 1]]);
    });
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99]) {
      const exact = sorted[Math.floor(q * (sorted.length - 1))]!;
      expect(Math.abs(sketchQuantile(sketch, q)! - exact) / exact).toBeLessThan(0.05);
    }
    expect(sketchQuantile(mergeSketch(new Map(halves[0]), halves[1]!), 0.9)).toBe(sketchQuantile(sketch, 0.9));
    expect(sketchQuantile(new Map(), 0.5)).toBeNull();
    // Every value lies within the relative accuracy of its bucket's representative.
    for (const value of [1.5, 37, 912, 45_000, 600_000]) expect(Math.abs(bucketValue(sketchBucket(value)) - value) / value).toBeLessThan(0.05);
  });
});

describe('quality report', () => {
  it('clamps absurd numbers, scales an impossible beat down, cleans the fatal error name and refuses wrong types', async () => {
    expect(parseQualityReport({})).toEqual({ report: null });
    expect(parseQualityReport({ qoe: null })).toEqual({ report: null });
    expect(parseQualityReport({ qoe: { playingMs: -5, stalledMs: 400_000, stalls: 1e9, startupMs: 1e12, errors: { count: 3, lastFatal: 'frag<script>Load Error' } } }).report).toEqual({
      playingMs: 0,
      stalledMs: 120_000,
      stalls: 1000,
      startupMs: 600_000,
      droppedFrames: 0,
      errors: 3,
      lastFatal: 'fragscriptLoadError',
      errorTypes: { unknown: 3 },
    });
    // Errors by name: names cleaned, never more than the count, the rest `unknown`; past eight names, `other`.
    expect(parseQualityReport({ qoe: { errors: { count: 4, types: { 'frag Load<Error': 2, bufferStalledError: 5 } } } }).report!.errorTypes).toEqual({ fragLoadError: 2, bufferStalledError: 2 });
    expect(parseQualityReport({ qoe: { errors: { count: 3, types: { manifestLoadError: 1 } } } }).report!.errorTypes).toEqual({ manifestLoadError: 1, unknown: 2 });
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`error${i}`, 1]));
    expect(parseQualityReport({ qoe: { errors: { count: 10, types: many } } }).report!.errorTypes).toMatchObject({ error7: 1, other: 2 });
    expect(parseQualityReport({ qoe: { errors: { count: 1, types: 'lots' } } }).dropped).toEqual({ field: 'qoe.errors.types', problem: 'must be an object of counts' });
    expect(parseQualityReport({ qoe: { playingMs: 100_000, stalledMs: 100_000 } }).report).toMatchObject({ playingMs: 60_000, stalledMs: 60_000 });
    const f = domainFixture();
    const { token } = await f.watching();
    expect(parseQualityReport({ qoe: { playingMs: 'lots' } })).toEqual({ report: null, dropped: { field: 'qoe.playingMs', problem: 'must be a number' } });
    expect(parseQualityReport({ qoe: [1] })).toEqual({ report: null, dropped: { field: 'qoe', problem: 'must be an object' } });
    await expect(heartbeat(f.deps, token, { qoe: { playingMs: 'lots' } })).resolves.toEqual({ ok: true });
    // A bad token is 401 whatever the body says.
    expect((await refusal(heartbeat(f.deps, 'nope', { qoe: { playingMs: 'lots' } }))).status).toBe(401);
  });

  it('puts renditions of a ladder in classes of their own', () => {
    const ladder = [400, 800, 1500, 2500, 5000, 8000].map(bitrateClass);
    expect(new Set(ladder).size).toBe(ladder.length);
    expect(ladder).toEqual([400, 800, 1500, 2500, 5000, 8000]);
    expect(bitrateClass(2480)).toBe(2500);
    expect(bitrateClass(1e9)).toBe(50_000);
  });
});

/** Runs `work` and hands the code's item before and after it to the recorder, as the table's stream does. */
async function recorded(f: DomainFixture, codes: string[], work: () => Promise<unknown>): Promise<void> {
  const before = await Promise.all(codes.map((code) => f.stores.codes.getCode(code)));
  await work();
  const after = await Promise.all(codes.map((code) => f.stores.codes.getCode(code)));
  const changes: CodeChange[] = codes.map((_, i) => ({ before: before[i]!, after: after[i]!, at: f.now().toISOString() }));
  await recordAudience({ stores: f.stores, sessionTimeoutSeconds: f.deps.config.sessionTimeoutSeconds }, { codes: changes, events: [] });
}

const beat = (playingMs: number, stalledMs = 0, extra: Record<string, unknown> = {}) => ({ qoe: { playingMs, stalledMs, ...extra } });

describe('audience aggregation', () => {
  it('counts viewers, joins and leaves per minute, watch time, stall ratio, start-up percentiles, errors and the rendition mix', async () => {
    const f = domainFixture('2026-11-22T20:00:00.000Z');
    const event = sampleEvent({ startsAt: '2026-11-22T20:00:00.000Z', endsAt: '2026-11-22T22:00:00.000Z', tokenCount: 3 });
    await f.stores.events.createEvent(event);
    const codes = [0, 1, 2].map(() => sampleCode(event.id));
    for (const code of codes) await f.stores.codes.createCode(code);
    const all = codes.map((code) => code.code);
    const tokens: string[] = [];
    // 20:00:10: three viewers arrive.
    f.advance(10);
    await recorded(f, all, async () => {
      for (const code of all) {
        const grant = await validateCode(f.deps, { code, ip: '198.51.100.7', userAgent: CHROME, playbackBaseUrl: PLAYBACK_BASE_URL });
        tokens.push(grant.playbackToken);
      }
    });
    // Beats at 20:00:40, 20:01:10, 20:01:40: viewer 3 stalls a quarter of the time.
    const startups = [600, 900, 4000];
    for (let i = 0; i < 3; i++) {
      f.advance(30);
      await recorded(f, all, () =>
        Promise.all(tokens.map((token, v) => heartbeat(f.deps, token, beat(v === 2 ? 22_500 : 30_000, v === 2 ? 7_500 : 0, { bitrateKbps: v === 0 ? 800 : 2500, errors: v === 2 ? { count: 1, types: { fragLoadTimeOut: 1 } } : { count: 0 }, ...(i === 0 ? { startupMs: startups[v] } : {}) })))),
      );
    }
    // 20:02:10: viewer 1 leaves; the other two beat on until 20:03:10, then viewer 2's device goes silent.
    f.advance(30);
    await recorded(f, all, async () => {
      await releasePlayback(f.deps, tokens[0]!);
      await Promise.all([heartbeat(f.deps, tokens[1]!, beat(30_000)), heartbeat(f.deps, tokens[2]!, beat(30_000))]);
    });
    for (let i = 0; i < 2; i++) {
      f.advance(30);
      await recorded(f, all, () => Promise.all([heartbeat(f.deps, tokens[1]!, beat(30_000)), heartbeat(f.deps, tokens[2]!, beat(30_000))]));
    }
    for (let i = 0; i < 2; i++) {
      f.advance(30);
      await recorded(f, all, () => heartbeat(f.deps, tokens[2]!, beat(30_000)));
    }
    // 20:05:00, settled up to 20:04.
    f.advance(50);

    const report = await audienceReport(f.deps, event.id, { from: '2026-11-22T20:00:00Z', step: '60' });
    const rows = report.series.map((p) => ({ at: p.at.slice(11, 16), viewers: p.viewers, joins: p.joins, leaves: p.leaves }));
    expect(rows).toEqual([
      { at: '20:00', viewers: 3, joins: 3, leaves: 0 },
      { at: '20:01', viewers: 3, joins: 0, leaves: 0 },
      { at: '20:02', viewers: 3, joins: 0, leaves: 0 },
      { at: '20:03', viewers: 2, joins: 0, leaves: 1 },
    ]);
    const first = report.series[0]!;
    expect(first.watchMinutes).toBe(1.5);
    expect(first.stallRatio).toBeCloseTo(7500 / 90_000, 4);
    expect(Math.abs(first.startupMsP50! - 900) / 900).toBeLessThan(0.05);
    // Of three start-ups the 90th percentile is the second (the rank q × (n − 1), as DDSketch counts).
    expect(Math.abs(first.startupMsP90! - 900) / 900).toBeLessThan(0.05);
    expect(report.series[1]!.errors).toBe(2);
    expect(report.totals).toMatchObject({ peakViewers: 3, peakAt: '2026-11-22T20:00:00.000Z' });
    expect(report.totals.renditions.map((r) => r.kbps)).toEqual([800, 2500]);
    expect(report.totals.errorTypes).toEqual([{ name: 'fragLoadTimeOut', count: 3 }]);
    // Without `from`, the series begins five minutes before the first audience.
    expect((await audienceReport(f.deps, event.id, {})).from).toBe('2026-11-22T19:55:00.000Z');
    // Five-minute steps add the minutes up; the viewers are the most of any minute.
    const coarse = await audienceReport(f.deps, event.id, { from: '2026-11-22T20:00:00Z', step: '300' });
    expect(coarse.series).toHaveLength(1);
    expect(coarse.series[0]).toMatchObject({ viewers: 3, joins: 3, leaves: 1 });

    // The ticket that stalled is on the trouble list; the one that left has its session folded.
    const trouble = await troubleList(f.deps, event.id, {});
    expect(trouble.tickets.map((t) => [t.code, t.reason])).toEqual([[all[2], 'stalls']]);
    expect(trouble.tickets[0]).toMatchObject({ worstStallRatio: 0.0938, sessions: 1, devices: ['Chrome on Linux'] });
    const csv = await troubleCsv(f.deps, event.id);
    expect(csv.split('\r\n')[1]).toMatch(new RegExp(`^${all[2]},,stalls,9\\.4,`));
    const left = await ticketWatching(f.deps, codes[0]!.id);
    expect(left).toMatchObject({ sessions: 1, watchMinutes: 1.5, worstStallRatio: 0, trouble: null, watchingNow: null, devices: ['Chrome on Linux'] });
    const live = await ticketWatching(f.deps, codes[2]!.id);
    expect(live.watchingNow).toMatchObject({ startupMs: 4000, bitrateKbps: 2500 });
  });

  it('counts a device once in a minute where it reloaded (a new session on the same code): two devices are a peak of two', async () => {
    const f = domainFixture('2026-11-22T20:00:00.000Z');
    const event = sampleEvent({ startsAt: '2026-11-22T20:00:00.000Z', endsAt: '2026-11-22T22:00:00.000Z', tokenCount: 2 });
    await f.stores.events.createEvent(event);
    const codes = [0, 1].map(() => sampleCode(event.id));
    for (const code of codes) await f.stores.codes.createCode(code);
    const all = codes.map((code) => code.code);
    const claim = (code: string) => validateCode(f.deps, { code, ip: '198.51.100.7', userAgent: CHROME, playbackBaseUrl: PLAYBACK_BASE_URL });
    // 20:00:10: two devices, one code each.
    f.advance(10);
    let tokens: string[] = [];
    await recorded(f, all, async () => {
      tokens = (await Promise.all(all.map(claim))).map((grant) => grant.playbackToken);
    });
    // 20:00:40 and 20:01:10: both beat.
    for (let i = 0; i < 2; i++) {
      f.advance(30);
      await recorded(f, all, () => Promise.all(tokens.map((token) => heartbeat(f.deps, token, beat(30_000)))));
    }
    // 20:01:20: both reload (the page releases its session on unload; the reload claims a new one with the saved code).
    f.advance(10);
    await recorded(f, all, () => Promise.all(tokens.map((token) => releasePlayback(f.deps, token))));
    f.advance(2);
    await recorded(f, all, async () => {
      tokens = (await Promise.all(all.map(claim))).map((grant) => grant.playbackToken);
    });
    // Beats on to 20:02:52; 20:04:00 settles up to 20:03.
    for (let i = 0; i < 3; i++) {
      f.advance(30);
      await recorded(f, all, () => Promise.all(tokens.map((token) => heartbeat(f.deps, token, beat(30_000)))));
    }
    f.advance(68);
    const report = await audienceReport(f.deps, event.id, { from: '2026-11-22T20:00:00Z', step: '60' });
    expect(report.series.map((p) => [p.at.slice(11, 16), p.viewers, p.joins])).toEqual([
      ['20:00', 2, 2],
      ['20:01', 2, 2],
      ['20:02', 2, 0],
    ]);
    expect(report.totals.peakViewers).toBe(2);
  });

  it('counts every device of a code that lets several watch: each slot\'s joins, minutes and ended session', async () => {
    const f = domainFixture('2026-11-22T20:00:00.000Z');
    const event = sampleEvent({ startsAt: '2026-11-22T20:00:00.000Z', endsAt: '2026-11-22T22:00:00.000Z', tokenCount: 1, devicesPerCode: 2 });
    await f.stores.events.createEvent(event);
    const code = sampleCode(event.id);
    await f.stores.codes.createCode(code);
    const claim = () => validateCode(f.deps, { code: code.code, ip: '198.51.100.7', userAgent: CHROME, playbackBaseUrl: PLAYBACK_BASE_URL });
    // 20:00:10: two devices on the one code, each write its own change (as the table's stream delivers them).
    f.advance(10);
    const tokens: string[] = [];
    for (let device = 0; device < 2; device++) await recorded(f, [code.code], async () => tokens.push((await claim()).playbackToken));
    for (let i = 0; i < 3; i++) {
      f.advance(30);
      for (const token of tokens) await recorded(f, [code.code], () => heartbeat(f.deps, token, beat(30_000)));
    }
    // Both devices watching: the ticket's record counts both sessions, and the time of both.
    expect(await ticketWatching(f.deps, code.id)).toMatchObject({ sessions: 2, watchMinutes: 3 });
    // 20:01:40: the second device leaves; its session goes to the ticket's record.
    await recorded(f, [code.code], () => releasePlayback(f.deps, tokens[1]!));
    f.advance(80);
    const report = await audienceReport(f.deps, event.id, { from: '2026-11-22T20:00:00Z', step: '60' });
    expect(report.series.map((p) => [p.at.slice(11, 16), p.viewers, p.joins])).toEqual([
      ['20:00', 2, 2],
      ['20:01', 2, 0],
    ]);
    expect(await f.stores.audience.ticket(event.id, code.code)).toMatchObject({ sessions: 1 });
    // The ticket's record: the ended device's session and the one still watching, added up.
    expect(await ticketWatching(f.deps, code.id)).toMatchObject({ sessions: 2, watchMinutes: 3, watchingNow: { sessionId: expect.any(String) } });
  });

  it("a device gone silent is taken over: its session is folded into the ticket, and a failed start counts", async () => {
    const f = domainFixture();
    const { event, code, token } = await f.watching();
    await recorded(f, [code.code], () => heartbeat(f.deps, token, { qoe: { playingMs: 0, errors: { count: 1, lastFatal: 'manifestLoadError' } } }));
    expect((await troubleList(f.deps, event.id, {})).tickets.map((t) => t.reason)).toEqual(['failed-start']);
    f.advance(200);
    await recorded(f, [code.code], () => validateCode(f.deps, { code: code.code, ip: '203.0.113.9', playbackBaseUrl: PLAYBACK_BASE_URL }));
    const ticket = await f.stores.audience.ticket(event.id, code.code);
    expect(ticket).toMatchObject({ sessions: 1, startFailures: 1, lastFatal: 'manifestLoadError' });
    expect(await ticketWatching(f.deps, code.id)).toMatchObject({ sessions: 2, startFailures: 1, trouble: 'failed-start' });
  });

  it('marks on and off air from the publish lease, and a lease that ran out at its last renewal', () => {
    const base = sampleEvent();
    const on = { ...base, leaseHolder: 'ingest-1', leaseExpiresAt: '2026-11-22T20:00:15.000Z', updatedAt: '2026-11-22T20:00:00.000Z' };
    const renewed = { ...on, leaseExpiresAt: '2026-11-22T20:10:15.000Z', updatedAt: '2026-11-22T20:10:00.000Z' };
    const released = { ...renewed, leaseHolder: null, leaseExpiresAt: null, lastLiveEndedAt: '2026-11-22T20:10:03.000Z' };
    const swept = { ...renewed, leaseHolder: null, leaseExpiresAt: null, lastLiveEndedAt: '2026-11-22T20:11:00.000Z' };
    expect(airChangesOf({ before: base, after: on })).toEqual([{ at: '2026-11-22T20:00:00.000Z', onAir: true }]);
    expect(airChangesOf({ before: on, after: renewed })).toEqual([]);
    expect(airChangesOf({ before: renewed, after: released })).toEqual([{ at: '2026-11-22T20:10:03.000Z', onAir: false }]);
    expect(airChangesOf({ before: renewed, after: swept })).toEqual([{ at: '2026-11-22T20:10:00.000Z', onAir: false }]);
  });

  it('ignores writes that change no session: a revoke, a deleted code', () => {
    const code = sampleCode('e1', { session: { id: 's', startedAt: '2026-11-22T20:00:00.000Z', heartbeatAt: '2026-11-22T20:00:30.000Z' } });
    expect(effectsOfCodeChange({ before: code, after: { ...code, isRevoked: true }, at: '2026-11-22T20:00:40.000Z' }, 90)).toBeNull();
    expect(effectsOfCodeChange({ before: code, after: null, at: '2026-11-22T20:00:40.000Z' }, 90)).toBeNull();
  });
});
