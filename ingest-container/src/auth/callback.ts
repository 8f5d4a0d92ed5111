import { patternFromSigns } from '../../../recording/watermark-pattern';
import type { Logger } from '../log';
import { streamKeyOf, type AccessGrant, type AccessRequest } from './access-request';
import { AuthServiceUnavailable, invalidCredentials, tokenMissing } from './errors';

/** The spec's callback body; the token travels here in clear, so use an https URL off-box. */
export function callbackBody(request: AccessRequest) {
  return {
    action: request.action,
    app: request.app,
    stream_name: request.streamName,
    stream_key: streamKeyOf(request),
    token: request.token ?? '',
    remote_addr: request.remoteAddr,
    ...(request.recheck ? { recheck: true } : {}),
    ...(request.protocol ? { protocol: request.protocol } : {}),
  };
}

/**
 * Mode `callback`: one POST per check, no state kept. Only 200 passes. Any
 * other answer is a rejection, except 5xx, which says the service failed
 * rather than that the credentials are wrong; it denies all the same.
 */
export async function askCallback(
  config: { url: string; timeoutMs: number; apiKey?: string },
  request: AccessRequest,
  log?: Pick<Logger, 'warn'>,
): Promise<AccessGrant> {
  const { url, timeoutMs } = config;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.apiKey ? { 'x-internal-api-key': config.apiKey } : {}) },
      body: JSON.stringify(callbackBody(request)),
      // A redirect is an answer other than 200, not something to follow.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new AuthServiceUnavailable(timedOut ? `auth callback timed out after ${timeoutMs} ms` : 'auth callback unreachable', {
      cause: error,
    });
  }
  if (response.status === 200) return grantOf(await response.text().catch(() => ''), request, log);
  // Free the connection whatever the body; only the status matters.
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 500) throw new AuthServiceUnavailable(`auth callback answered ${response.status}`);
  throw request.token === undefined ? tokenMissing() : invalidCredentials();
}

/**
 * The 200 answer's optional `session`, `role`, `srtPassphrase` and (a publish) `watermark`; any other body
 * (or none) grants without them (a primary, not watermarked).
 */
export function grantOf(text: string, request: Pick<AccessRequest, 'action' | 'app' | 'streamName'>, log?: Pick<Logger, 'warn'>): AccessGrant {
  let body: { session?: unknown; role?: unknown; srtPassphrase?: unknown; watermark?: unknown } | null;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return {};
  }
  const grant: AccessGrant = {};
  if (typeof body?.session === 'string' && body.session !== '') grant.session = body.session;
  if (body?.role === 'backup') grant.role = 'backup';
  if (typeof body?.srtPassphrase === 'string' && body.srtPassphrase !== '') grant.srtPassphrase = body.srtPassphrase;
  if (request.action === 'publish' && body?.watermark !== undefined) {
    const signs = (body.watermark as { signs?: unknown } | null)?.signs;
    const pattern = typeof signs === 'string' ? patternFromSigns(signs) : null;
    // Fails open on purpose: a publish the platform admitted goes on air unmarked rather than not at all.
    if (pattern) grant.watermark = pattern;
    else log?.warn('publish answer has a malformed watermark, the publish is not watermarked', { stream_key: streamKeyOf(request) });
  }
  return grant;
}
