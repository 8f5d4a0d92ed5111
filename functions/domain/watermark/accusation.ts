import { logBinomialTail } from './binomial-tail';
import type { MarkBit } from './mark-bit';

/** The bar: naming an innocent must be far less likely than one in a million. */
export const FALSE_ACCUSATION_BOUND = 1e-6;

/**
 * Agreements (out of `compared` read bits) a session needs before it is named: the smallest k with
 * sessions × P(Binomial(compared, 1/2) ≥ k) ≤ bound. An innocent's bits are independent of the copy
 * whatever the copier did (noise, re-encoding, mixing with accomplices), so each innocent reaches k
 * with at most that tail, and the union bound over every candidate caps the chance that any does.
 * Returns compared + 1 when no k is enough (too few segments: nobody can be named).
 */
export function agreementsNeeded(compared: number, sessions: number, bound = FALSE_ACCUSATION_BOUND): number {
  const budget = Math.log(bound) - Math.log(Math.max(1, sessions));
  let low = 0;
  let high = compared + 1;
  // The tail falls as k grows: find the first k inside the budget.
  while (low < high) {
    const mid = (low + high) >> 1;
    if (logBinomialTail(compared, mid) <= budget) high = mid;
    else low = mid + 1;
  }
  return low;
}

export interface TraceInput {
  /** The bit read from each aligned segment of the copy; null where it could not be read (an erasure). */
  copy: readonly (MarkBit | null)[];
  /** Every session that could have made the copy (the union bound counts them all). */
  sessions: readonly string[];
  /** The bit the edge served `sessionId` at the copy's segment `index` (markBit of its moment). */
  bitOf: (sessionId: string, index: number) => MarkBit;
  bound?: number;
}

export interface Accusation {
  /** The session named, or null when no session clears the threshold. */
  sessionId: string | null;
  /** The best session's agreements with the copy, whether named or not. */
  agreements: number;
  bestSessionId: string | null;
  /** Segments with a bit read (erasures left out). */
  compared: number;
  /** Agreements needed to name anyone. */
  threshold: number;
  /** Upper bound on the chance that some innocent agrees this much: sessions × the binomial tail. */
  falseAccusationOdds: number;
  /** 1 − falseAccusationOdds for a named session; 0 when nobody is named. */
  confidence: number;
}

/** A bit read from the copy at its aligned segment `index` (erasures left out). */
interface ReadBit {
  bit: MarkBit;
  index: number;
}

/** The best-scoring session so far: a trace over many pages keeps only this between them. */
export interface BestSession {
  sessionId: string | null;
  agreements: number;
}

const NO_SESSION: BestSession = { sessionId: null, agreements: -1 };

const readBits = (copy: readonly (MarkBit | null)[]): ReadBit[] => copy.flatMap((bit, index) => (bit === null ? [] : [{ bit, index }]));

/**
 * The best of `sessions` by their agreements with the copy's read bits (with fair bits, Tardos's
 * symmetric score reduces to matches − mismatches = 2·agreements − compared, so the order is the
 * same), and `best` (the earlier pages' best; a tie keeps the earlier).
 */
export function bestSession(sessions: Iterable<string>, agreementsOf: (sessionId: string) => number, best: BestSession = NO_SESSION): BestSession {
  for (const sessionId of sessions) {
    const agreements = agreementsOf(sessionId);
    if (agreements > best.agreements) best = { sessionId, agreements };
  }
  return best;
}

/**
 * Names the best of `sessions` candidates only above the threshold. Two colluders who mix their
 * copies segment by segment agree with each other on half the segments, so one of them agrees with
 * the copy on at least 3/4, while any third session stays near 1/2: it is named only with the
 * bounded chance.
 */
export function verdict(best: BestSession, compared: number, sessions: number, bound = FALSE_ACCUSATION_BOUND): Accusation {
  const agreements = Math.max(0, best.agreements);
  const threshold = agreementsNeeded(compared, sessions, bound);
  const odds = Math.min(1, sessions * Math.exp(logBinomialTail(compared, agreements)));
  const named = best.sessionId !== null && agreements >= threshold;
  return {
    sessionId: named ? best.sessionId : null,
    agreements,
    bestSessionId: best.sessionId,
    compared,
    threshold,
    falseAccusationOdds: odds,
    confidence: named ? 1 - odds : 0,
  };
}

/** Scores every candidate at once and gives the verdict (a trace job does the same a page at a time). */
export function accuse(input: TraceInput): Accusation {
  const read = readBits(input.copy);
  const agreementsOf = (sessionId: string) => read.filter(({ bit, index }) => input.bitOf(sessionId, index) === bit).length;
  return verdict(bestSession(input.sessions, agreementsOf), read.length, input.sessions.length, input.bound);
}
