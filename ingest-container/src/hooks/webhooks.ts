import type { Logger } from '../log';
import { describeError } from '../log';

/** The hook event kinds this server emits; the spec names only this one. */
export const HOOK_EVENTS = ['auth_failed'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface AuthFailedPayload {
  event: 'auth_failed';
  /** ISO 8601. */
  time: string;
  conn_id: string;
  action: 'publish' | 'play';
  app: string;
  stream_name: string;
  stream_key: string;
  /** The sentinel message, or the transport failure; never the token. */
  error: string;
  /** True when the check failed for a publisher already live (callback recheck) rather than at the command. */
  recheck: boolean;
  remote_addr: string;
}

export type Webhooks = Readonly<Partial<Record<HookEvent, readonly string[]>>>;

/**
 * Fire-and-forget: the connection that failed is closed without waiting for
 * the webhook, each delivery is bounded by a timeout, and failures are only
 * logged (a slow or dead receiver must never hold the ingest back).
 */
export function createHookSender(webhooks: Webhooks, timeoutMs: number, log: Logger) {
  const pending = new Set<Promise<void>>();

  function send(payload: AuthFailedPayload): void {
    for (const url of webhooks[payload.event] ?? []) {
      const delivery = fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      })
        .then(async (response) => {
          await response.body?.cancel().catch(() => undefined);
          if (!response.ok) log.warn('webhook refused', { event: payload.event, url: safeUrl(url), status: response.status });
        })
        .catch((error) => log.warn('webhook failed', { event: payload.event, url: safeUrl(url), error: describeError(error) }))
        .finally(() => pending.delete(delivery));
      pending.add(delivery);
    }
  }

  /** Lets shutdown give deliveries in flight their chance (each is bounded by its timeout). */
  async function settle(): Promise<void> {
    await Promise.all([...pending]);
  }

  return { send, settle };
}


/** Webhook URLs may carry credentials in their query; logs get origin and path only. */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
