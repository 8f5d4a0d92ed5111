import { agreementsNeeded, FALSE_ACCUSATION_BOUND } from './accusation';
import { logBinomialTail } from './binomial-tail';

export interface CopyLengthQuestion {
  /** Candidate sessions of the event (the union bound's count). */
  sessions: number;
  /**
   * The guilty session's expected share of agreeing bits: 1 − bit error rate for one leaker; for
   * two colluders mixing, at least 3/4 before errors, so (3/4)(1 − e) + (1/4)e with error rate e.
   */
  agreement: number;
  /** Wanted chance of naming the leaker (default 0.99). */
  power?: number;
  bound?: number;
  /** Give up beyond this many read segments. */
  limit?: number;
}

/**
 * The fewest read segments (seconds of copy with 1 s segments, erasures not counted) with which the
 * leaker clears the threshold with the wanted chance; null beyond the limit. Scans upwards: the
 * threshold is a step function of the length, so the first length that works is the answer.
 */
export function segmentsNeeded(question: CopyLengthQuestion): number | null {
  const power = question.power ?? 0.99;
  const bound = question.bound ?? FALSE_ACCUSATION_BOUND;
  const limit = question.limit ?? 5000;
  const logMiss = Math.log(power);
  for (let m = 1; m <= limit; m++) {
    const threshold = agreementsNeeded(m, question.sessions, bound);
    if (threshold > m) continue;
    if (logBinomialTail(m, threshold, question.agreement) >= logMiss) return m;
  }
  return null;
}
