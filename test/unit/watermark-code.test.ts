import { describe, expect, it } from 'vitest';
import {
  accuse,
  agreementsNeeded,
  copyBlocks,
  logBinomialTail,
  markBit,
  momentOf,
  segmentsNeeded,
  sessionAgreements,
  sessionMarks,
  type MarkBit,
} from '../../functions/domain/watermark';

const KEY = Buffer.from('an event mark key of thirty-two!');

/** A small seeded generator (mulberry32): trials are the same on every run, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const coin = (random: () => number): MarkBit => (random() < 0.5 ? 0 : 1);
const sessionIds = (count: number) => Array.from({ length: count }, (_, i) => `sess-${i}`);
const moments = (count: number) => Array.from({ length: count }, (_, index) => ({ part: 'pub1', index }));

/** Sessions' bits drawn at random (what the keyed HMAC looks like to anyone without the key): fast enough for thousands of trials. */
function randomBits(sessions: readonly string[], length: number, random: () => number): Map<string, MarkBit[]> {
  return new Map(sessions.map((id) => [id, Array.from({ length }, () => coin(random))]));
}

describe('the mark bit', () => {
  it('is fixed by key, session and moment, the same in every rendition, and fair', () => {
    const seventh = { part: 'pub1', index: 7 };
    expect(markBit(KEY, 'sess-1', seventh)).toBe(markBit(KEY, 'sess-1', { ...seventh }));
    expect(momentOf('/streams/evt/pub1_00007.w.ts')).toEqual(seventh);
    expect(momentOf('/streams/evt/pub1-part2_00007.2.w.ts')).toEqual({ part: 'pub1-part2', index: 7 });
    expect(momentOf('ab_c_00300.a.ts')).toEqual({ part: 'ab_c', index: 300 });
    expect(momentOf('/streams/evt/pub1_00007.ts')).toBeNull();
    const remembered = sessionMarks(KEY, 'sess-1');
    expect(moments(600).every((moment) => remembered(moment) === markBit(KEY, 'sess-1', moment))).toBe(true);
    // Blocks of 256 are not repeats of each other.
    expect(moments(256).filter((m) => markBit(KEY, 'sess-1', m) !== markBit(KEY, 'sess-1', { ...m, index: m.index + 256 })).length).toBeGreaterThan(90);
    const ones = moments(4000).filter((moment) => markBit(KEY, 'sess-1', moment) === 1).length;
    expect(ones).toBeGreaterThan(1850);
    expect(ones).toBeLessThan(2150);
    const otherKey = moments(400).filter((moment) => markBit(KEY, 'sess-1', moment) !== markBit(Buffer.from('another key'), 'sess-1', moment));
    expect(otherKey.length).toBeGreaterThan(150);
  });

  it('scores a session by block (one HMAC each) exactly as bit by bit, erasures left out', () => {
    const random = seeded(7);
    // Two parts, moments across a block boundary, in any order, some not read.
    const copy = [...moments(300), ...moments(40).map((m) => ({ ...m, part: 'pub2', index: m.index + 500 }))]
      .map((moment) => ({ ...moment, bit: random() < 0.1 ? null : coin(random) }))
      .sort(() => random() - 0.5);
    const blocks = copyBlocks(copy);
    expect(blocks.map(({ part, block }) => `${part}.${block}`).sort()).toEqual(['pub1.0', 'pub1.1', 'pub2.1', 'pub2.2']);
    for (const session of sessionIds(20)) {
      expect(sessionAgreements(KEY, session, blocks)).toBe(copy.filter(({ bit, ...moment }) => bit !== null && markBit(KEY, session, moment) === bit).length);
    }
  });
});

describe('the binomial tail and the threshold', () => {
  it('is exact on small cases', () => {
    expect(Math.exp(logBinomialTail(10, 10))).toBeCloseTo(2 ** -10, 15);
    expect(Math.exp(logBinomialTail(4, 3))).toBeCloseTo(5 / 16, 15);
    expect(Math.exp(logBinomialTail(5, 2, 0.3))).toBeCloseTo(1 - 0.7 ** 5 - 5 * 0.3 * 0.7 ** 4, 12);
    expect(logBinomialTail(10, 0)).toBe(0);
    expect(logBinomialTail(10, 11)).toBe(-Infinity);
    expect(Number.isFinite(logBinomialTail(3000, 2900))).toBe(true);
  });

  it('asks a clean copy for log2(sessions / 1e-6) segments: 40 among a million sessions', () => {
    expect(agreementsNeeded(40, 1_000_000)).toBe(40);
    expect(agreementsNeeded(39, 1_000_000)).toBe(40);
    expect(segmentsNeeded({ sessions: 1_000_000, agreement: 1 })).toBe(40);
    expect(segmentsNeeded({ sessions: 100, agreement: 1 })).toBe(27);
  });
});

describe('tracing a copy', () => {
  const sessions = sessionIds(1000);
  const markOf = (length: number) => {
    const ids = moments(length);
    return (sessionId: string, index: number) => markBit(KEY, sessionId, ids[index]!);
  };

  it('names the session of a clean copy, and nobody with too few segments', () => {
    const bitOf = markOf(30);
    const copy = Array.from({ length: 30 }, (_, i) => bitOf('sess-417', i));
    const result = accuse({ copy, sessions, bitOf });
    expect(result).toMatchObject({ sessionId: 'sess-417', agreements: 30, compared: 30, threshold: 30 });
    expect(result.falseAccusationOdds).toBeLessThan(1e-6);
    expect(result.confidence).toBeGreaterThan(1 - 1e-6);
    expect(accuse({ copy: copy.slice(0, 20), sessions, bitOf }).sessionId).toBeNull();
  });

  it('names the session of a copy with 20 % of its bits wrong and some unread, given enough segments', () => {
    const length = segmentsNeeded({ sessions: sessions.length, agreement: 0.8 })!;
    expect(length).toBeGreaterThan(60);
    expect(length).toBeLessThan(180);
    const random = seeded(20);
    const withErasures = length + 20;
    const bitOf = markOf(withErasures);
    let erased = 0;
    const copy = Array.from({ length: withErasures }, (_, i): MarkBit | null => {
      if (erased < 20 && random() < 0.15) return erased++, null;
      const bit = bitOf('sess-8', i);
      return random() < 0.2 ? ((1 - bit) as MarkBit) : bit;
    });
    const result = accuse({ copy, sessions, bitOf });
    expect(result.sessionId).toBe('sess-8');
    expect(result.compared).toBe(withErasures - erased);
  });

  it('names nobody for a copy that carries none of these sessions’ marks, in 10,000 trials', () => {
    const random = seeded(10_000);
    const few = sessionIds(50);
    const bits = randomBits(few, 40, random);
    const bitOf = (sessionId: string, index: number) => bits.get(sessionId)![index]!;
    let named = 0;
    let namedAtLooseBound = 0;
    for (let trial = 0; trial < 10_000; trial++) {
      const copy = Array.from({ length: 40 }, () => coin(random));
      if (accuse({ copy, sessions: few, bitOf }).sessionId !== null) named++;
      if (accuse({ copy, sessions: few, bitOf, bound: 0.05 }).sessionId !== null) namedAtLooseBound++;
    }
    expect(named).toBe(0);
    // The bound is a bound and not far off: at 5 % it is reached, never exceeded (sampling spread allowed).
    expect(namedAtLooseBound / 10_000).toBeLessThan(0.05 * 1.2);
    expect(namedAtLooseBound).toBeGreaterThan(0);
  });

  it('names one of two colluders mixing segment by segment, or nobody, never a third, in 1,000 trials', () => {
    const random = seeded(1000);
    const crowd = sessionIds(100);
    // The copy length at which the worse-placed of the two (at least 3/4 agreement) is named 99 % of the time.
    const length = segmentsNeeded({ sessions: crowd.length, agreement: 0.75 })!;
    const outcomes = { colluder: 0, nobody: 0, innocent: 0 };
    for (let trial = 0; trial < 1000; trial++) {
      const bits = randomBits(crowd, length, random);
      const first = crowd[Math.floor(random() * crowd.length)]!;
      const second = crowd[(crowd.indexOf(first) + 1 + Math.floor(random() * (crowd.length - 1))) % crowd.length]!;
      const copy = mix(bits.get(first)!, bits.get(second)!, trial % 4, random);
      const result = accuse({ copy, sessions: crowd, bitOf: (id, i) => bits.get(id)![i]! });
      if (result.sessionId === null) outcomes.nobody++;
      else if (result.sessionId === first || result.sessionId === second) outcomes.colluder++;
      else outcomes.innocent++;
    }
    expect(outcomes.innocent).toBe(0);
    expect(outcomes.colluder).toBeGreaterThan(980);
  });
});

/**
 * Two colluders' copy: each segment from one of them, by four strategies: at random, alternately,
 * in halves, and balanced (where they differ, taking each one's bit in turn so neither stands out).
 */
function mix(a: MarkBit[], b: MarkBit[], strategy: number, random: () => number): MarkBit[] {
  let turn = 0;
  return a.map((bit, i) => {
    if (strategy === 0) return random() < 0.5 ? bit : b[i]!;
    if (strategy === 1) return i % 2 === 0 ? bit : b[i]!;
    if (strategy === 2) return i < a.length / 2 ? bit : b[i]!;
    return bit === b[i] ? bit : turn++ % 2 === 0 ? bit : b[i]!;
  });
}
