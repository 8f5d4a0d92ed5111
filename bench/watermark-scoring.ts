/**
 * The trace job's CPU: scoring SESSIONS sessions (default 1,000,000, a sold-out night) against a
 * 3-minute copy's 180 bits, as each lane of `trace-copy` scores a page (watermark/accusation.ts
 * `bestSession` over mark-bit.ts `sessionAgreements`: one HMAC per block of the copy), in one process. Baseline in the same run: one bare HMAC-SHA256 per
 * session, the least any keyed per-viewer mark costs. Median of 3 runs each.
 *   npx tsx bench/watermark-scoring.ts     (SESSIONS=1000000)
 */
import { createHmac, randomBytes } from 'node:crypto';
import { bestSession, copyBlocks, sessionAgreements, type MarkBit } from '../functions/domain/watermark';
import { median, table } from './lib/stats';

const SESSIONS = Number(process.env.SESSIONS ?? 1_000_000);
const BITS = 180;
const RUNS = 3;

const markKey = randomBytes(32);
// Show time 20:00–23:00 of a part: its moments fall in two of the HMAC's 256-moment blocks.
const blocks = copyBlocks(Array.from({ length: BITS }, (_, i) => ({ part: 'pub1-part1', index: 1200 + i, bit: (i % 3 === 0 ? 1 : 0) as MarkBit })));
const sessionIds = Array.from({ length: SESSIONS }, (_, i) => `${i.toString(36).padStart(8, '0')}-1`);

function scoring(): number {
  const started = performance.now();
  const best = bestSession(sessionIds, (sessionId) => sessionAgreements(markKey, sessionId, blocks));
  if (best.sessionId === null) throw new Error('no session scored');
  return (performance.now() - started) / 1000;
}

function bareHmacs(): number {
  const started = performance.now();
  for (const sessionId of sessionIds) createHmac('sha256', markKey).update(sessionId).digest();
  return (performance.now() - started) / 1000;
}

const base = median(Array.from({ length: RUNS }, bareHmacs));
const scored = median(Array.from({ length: RUNS }, scoring));
console.log(`## Scoring a copy's ${BITS} bits against ${SESSIONS.toLocaleString('en-US')} sessions, one core\n`);
console.log(
  table([
    { what: 'one HMAC-SHA256 per session (baseline)', 'median s': base.toFixed(2), 'sessions/s': Math.round(SESSIONS / base), ratio: '1.00' },
    { what: `scoring: the session's ${blocks.length} blocks (an HMAC each), ${BITS} bits compared`, 'median s': scored.toFixed(2), 'sessions/s': Math.round(SESSIONS / scored), ratio: (scored / base).toFixed(2) },
  ]),
);
