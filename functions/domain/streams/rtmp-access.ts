import * as z from 'zod';
import { RTMP_APP } from '../config';
import { secretsEqual } from '../constant-time';
import { AccessRevoked, RtmpDenied, SessionGone } from '../errors';
import { accessEndsAt } from '../event-status';
import { parseInput, recordId } from '../inputs';
import { checkViewerToken } from '../access';
import { keyRefusalReason, recordRefusal } from '../events';
import type { EncoderRole, EventRecord, PublishRefusalReason } from '../records';
import type { EventStore } from '../events';
import { beatSession, type CodeStore } from '../codes';
import type { AuditStore } from '../audit';
import type { AppConfig } from '../config';
import { patternSignsOf } from '../watermark';

/** The RTMP server's callback body (spec/rtmp-auth.md), plus `recheck` that our ingest adds when it re-asks for a live session. */
const rtmpAuthInput = z.object({
  action: z.enum(['publish', 'play']),
  app: z.string().max(64),
  stream_name: z.string().min(1).max(256),
  stream_key: z.string().max(512),
  token: z.string().max(4096),
  remote_addr: z.string().max(64),
  recheck: z.boolean().optional(),
  /** Set by the ingest for an SRT caller (docs/ingest.md); absent: RTMP. */
  protocol: z.enum(['srt']).optional(),
});

/** `watermark`: the publish is of a watermarked event, and the ingest marks the part with this pattern (docs/watermark-design.md). */
export type RtmpGrant = { ok: true; role: EncoderRole; srtPassphrase?: string; watermark?: { signs: string } } | { ok: true; session: string };

/** The publish answer's `watermark`, read from the event at the time of the publish: a change applies from the next one. */
function watermarkOf(event: EventRecord, config: AppConfig): { watermark?: { signs: string } } {
  return event.watermark === true ? { watermark: { signs: patternSignsOf(config.watermarkSecret, event.id) } } : {};
}

/**
 * Which encoder a publish token is: the RTMP keys count only without `protocol`, the SRT ones only with
 * `protocol: "srt"` (a stream id sniffed off the wire is not an RTMP key, nor the reverse). Null: none.
 */
function publishRole(event: EventRecord, token: string, protocol: 'srt' | undefined): EncoderRole | null {
  const keys: [string | undefined, EncoderRole][] =
    protocol === 'srt' ? [[event.srtKey, 'primary'], [event.backupSrtKey, 'backup']] : [[event.ingestKey, 'primary'], [event.backupIngestKey, 'backup']];
  // Every key is compared, so the time taken does not tell which one was near.
  const matches = keys.filter(([key]) => key !== undefined && secretsEqual(token, key));
  return matches[0]?.[1] ?? null;
}

/**
 * The platform's answer to the ingest server's callback: a publish passes
 * with the event's ingest key; a play with a playback JWT for that event
 * whose session is still the code's live one. A play counts as the
 * session's heartbeat (an RTMP player sends none), so the single-device rule
 * holds while it plays, and the ingest's recheck, which re-asks on its
 * interval with `recheck: true`, cuts it once the code is revoked, the event
 * deactivated or another device took the code over. The answer names the
 * session so the ingest can admit one RTMP play connection per session.
 */
export async function authorizeRtmp(deps: { stores: { audit: AuditStore; codes: CodeStore; events: EventStore }; config: AppConfig; now(): Date }, body: unknown): Promise<RtmpGrant> {
  const input = parseInput(rtmpAuthInput, body);
  const deny = () => new RtmpDenied();
  if (input.app !== RTMP_APP || !recordId.safeParse(input.stream_name).success) throw deny();
  const event = await deps.stores.events.getEvent(input.stream_name);
  if (!event) throw deny();
  if (input.action === 'publish') {
    // Refused publishes are kept on the event (the answer stays the same): OBS shows only a generic error, the
    // event page says why. A failed write of that log must not change the answer.
    const refuse = async (reason: PublishRefusalReason) => {
      await recordRefusal(deps, event, reason, input.remote_addr).catch(() => undefined);
      return deny();
    };
    if (!event.isActive) throw await refuse('event-inactive');
    const role = input.token ? publishRole(event, input.token, input.protocol) : null;
    if (!role) throw await refuse(keyRefusalReason(event, input.token));
    if (input.protocol !== 'srt') return { ok: true, role, ...watermarkOf(event, deps.config) };
    // An SRT caller is told the passphrase the ingest sets on its socket; an event without one takes no SRT.
    if (!event.srtPassphrase) throw await refuse('wrong-key');
    return { ok: true, role, srtPassphrase: event.srtPassphrase, ...watermarkOf(event, deps.config) };
  }
  // RTMP play relays the publisher's unmarked stream: a watermarked show plays over HLS only (the ingest refuses it too).
  if (!event.isActive || event.watermark === true) throw deny();
  const now = deps.now();
  // A recheck re-asks with the token the player connected with; it has usually expired by then, the session has not.
  const checked = await checkViewerToken(input.token, deps.config.signingKeys, now, { allowExpired: input.recheck === true });
  if (!checked.ok || checked.claims.eid !== event.id) throw deny();
  const { claims } = checked;
  if (now.toISOString() >= accessEndsAt(event)) throw deny();
  try {
    await beatSession(deps, claims, now);
  } catch (error) {
    if (error instanceof SessionGone || error instanceof AccessRevoked) throw deny();
    throw error;
  }
  return { ok: true, session: claims.sid };
}
