import { describe, expect, it } from 'vitest';
import type { AccessRequest } from '../../ingest-container/src/auth/access-request';
import { AuthServiceUnavailable, ErrUnauthorized, TOKEN_MISSING } from '../../ingest-container/src/auth/errors';
import { createAuthFailureReport } from '../../ingest-container/src/hooks/auth-failure-report';
import type { AuthFailedPayload } from '../../ingest-container/src/hooks/webhooks';
import { createLogger } from '../../ingest-container/src/log';

const request: AccessRequest = { action: 'publish', app: 'live', streamName: 'show', token: 'secret-token', remoteAddr: '10.0.0.1:5000' };

function report() {
  const sent: AuthFailedPayload[] = [];
  const lines: Record<string, unknown>[] = [];
  const authFailed = createAuthFailureReport({ log: createLogger('debug', (line) => void lines.push(JSON.parse(line))), send: (payload) => void sent.push(payload) });
  return { authFailed, sent, lines };
}

describe('the auth failure report', () => {
  it('a "no" is logged at info and sent to the auth_failed webhooks with the spec\'s fields, never the token', () => {
    const { authFailed, sent, lines } = report();
    authFailed({ id: 'c1' }, request, new ErrUnauthorized(TOKEN_MISSING), false);
    expect(lines).toMatchObject([{ level: 'info', msg: 'auth failed', conn_id: 'c1', action: 'publish', stream_key: 'live/show', error: TOKEN_MISSING, recheck: false }]);
    expect(sent).toEqual([
      { event: 'auth_failed', time: expect.any(String), conn_id: 'c1', action: 'publish', app: 'live', stream_name: 'show', stream_key: 'live/show', error: TOKEN_MISSING, recheck: false, remote_addr: '10.0.0.1:5000' },
    ]);
    expect(JSON.stringify([lines, sent])).not.toContain('secret-token');
  });

  it('a check with no answer is logged at warn as such; the webhook names the failure', () => {
    const { authFailed, sent, lines } = report();
    authFailed({ id: 'c2' }, request, new AuthServiceUnavailable('callback timed out'), true);
    expect(lines).toMatchObject([{ level: 'warn', msg: 'auth check could not be made, denied', recheck: true }]);
    expect(sent).toMatchObject([{ error: 'callback timed out', recheck: true }]);
  });
});
