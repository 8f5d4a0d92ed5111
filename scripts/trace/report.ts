/** The tracer's printed report (docs/watermark-design.md, section 5) and its last line, the JSON answer. */
import type { CopyTraceResult } from '../../functions/domain/jobs';
import type { Placement } from '../../functions/domain/watermark';
import type { VideoInfo } from './media';


const clock = (seconds: number) => {
  const s = Math.max(0, Math.floor(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
};
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const count = (n: number) => n.toLocaleString('en');
const short = (id: string) => (id.length > 10 ? `${id.slice(0, 4)}…${id.slice(-2)}` : id);

export function copyLine(file: string, video: VideoInfo): string {
  return `copy: ${file}, ${video.seconds.toFixed(1)} s, ${video.width}×${video.height} at ${Math.round(video.fps * 100) / 100} fps`;
}

/** Each part the copy shows: its segment range and show time (seconds from the first part's start). */
export function alignedLine(runs: { part: string; first: number; last: number; from: number; to: number }[], placement: Placement): string {
  const where = runs.map((run) => `part ${run.part}, segments ${run.first}–${run.last} (show time ${clock(run.from)}–${clock(run.to)})`).join('; ');
  return `aligned: ${where || 'nothing'}, crop ${percent(placement.scale)} at (${percent(placement.left)}, ${percent(placement.top)})`;
}

export function bitsLine(read: number, erased: number): string {
  return `bits: ${read} read, ${erased} erased`;
}

export function verdictLines(answer: CopyTraceResult): string[] {
  const tail = `${answer.agreements}/${answer.compared} agree (threshold ${answer.threshold} among ${count(answer.candidates)} sessions)`;
  const best = answer.sessionId
    ? `best session: ${short(answer.sessionId)} of code ${answer.code}, label "${answer.label ?? ''}", ${tail}`
    : `nobody named: the best session has ${tail}`;
  const odds = `a wrong accusation: at most ${answer.odds.toExponential(1)} (${count(answer.candidates)} × P(Bin(${answer.compared}, 1/2) ≥ ${answer.agreements}))`;
  return [best, odds];
}

export function jsonLine(answer: Pick<CopyTraceResult, 'code' | 'tokenId' | 'label' | 'sessionId' | 'confidence'>): string {
  return JSON.stringify({ code: answer.code, tokenId: answer.tokenId, label: answer.label, sessionId: answer.sessionId, confidence: answer.confidence });
}
