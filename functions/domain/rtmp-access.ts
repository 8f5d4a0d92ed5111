import * as z from 'zod';
import { secretsEqual } from './constant-time';
import { HttpError } from './http-error';
import { parseInput } from './inputs';
import { verifyPlaybackToken } from './playback-token';
import type { AccessDeps } from './viewer-access';

/** The RTMP server's callback body (spec/rtmp-auth.md). */
const rtmpAuthInput = z.object({
  action: z.enum(['publish', 'play']),
  app: z.string(),
  stream_name: z.string().min(1),
  stream_key: z.string(),
  token: z.string(),
  remote_addr: z.string(),
});

/**
 * The platform's answer to the ingest server's callback: a publish passes
 * with the event's ingest key, a play with a playback JWT for that event;
 * an unknown or inactive event denies both.
 */
export async function authorizeRtmp(deps: AccessDeps, body: unknown): Promise<{ ok: true }> {
  const input = parseInput(rtmpAuthInput, body);
  const deny = (reason: string) => new HttpError(403, reason);
  const event = await deps.store.getEvent(input.stream_name);
  if (!event || !event.isActive) throw deny('Event not available');
  if (input.action === 'publish') {
    if (!input.token || !secretsEqual(input.token, event.ingestKey)) throw deny('Invalid ingest key');
    return { ok: true };
  }
  const verified = input.token ? await verifyPlaybackToken(input.token, deps.config.signingKeys, deps.now()) : null;
  if (!verified?.ok || verified.expired || verified.claims.eid !== event.id) throw deny('Invalid playback token');
  const code = await deps.store.getCode(verified.claims.code);
  if (!code || code.isRevoked) throw deny('Access has been revoked');
  return { ok: true };
}
