import { describe, expect, it } from 'vitest';
import { createAdmission } from '../../ingest-container/src/admission';
import type { AccessRequest } from '../../ingest-container/src/auth/access-request';
import { AuthServiceUnavailable, ErrUnauthorized, INVALID_CREDENTIALS, StreamBusy } from '../../ingest-container/src/auth/errors';
import { createLogger } from '../../ingest-container/src/log';
import type { LeaseAnswer } from '../../ingest-container/src/platform/live-notifier';
import { createFailureBrake } from '../../ingest-container/src/rtmp/failure-brake';

const publish: AccessRequest = { action: 'publish', app: 'live', streamName: 'show', token: 't', remoteAddr: '10.0.0.1:5000' };
const play: AccessRequest = { ...publish, action: 'play' };

/** An admission with a scripted check and lease; records what it asked and logged. */
function admission(options: { check?: () => Promise<object>; lease?: LeaseAnswer; holds?: boolean; closing?: boolean; freeFailures?: number } = {}) {
  const asked: string[] = [];
  const reopened: string[] = [];
  const lines: Record<string, unknown>[] = [];
  let closing = options.closing ?? false;
  const admit = createAdmission({
    authenticator: { check: options.check ?? (async () => ({ session: 'v1' })) },
    brake: createFailureBrake({ freeFailures: options.freeFailures ?? 0, minDelayMs: 20, maxDelayMs: 20 }),
    notifier: {
      acquire: async (eventId) => {
        asked.push(eventId);
        return options.lease ?? 'ok';
      },
    },
    holdsShow: (streamPath) => options.holds === true && streamPath === '/live/show',
    reopenShow: async (streamName) => void reopened.push(streamName),
    closing: () => closing,
    log: createLogger('info', (line) => void lines.push(JSON.parse(line))),
  });
  return { admit, asked, reopened, lines, shutDown: () => (closing = true) };
}

describe('admission (auth check, brake, lease, reopening a show)', () => {
  it('a publish takes the event lease and reopens its show; the grant passes through', async () => {
    const { admit, asked, reopened } = admission();
    await expect(admit(publish)).resolves.toEqual({ session: 'v1' });
    expect(asked).toEqual(['show']);
    expect(reopened).toEqual(['show']);
  });

  it('a play, and a publish resuming a show this process holds, ask for no lease', async () => {
    const { admit, asked, reopened } = admission({ holds: true });
    await admit(play);
    await admit(publish);
    expect(asked).toEqual([]);
    expect(reopened).toEqual([]);
  });

  it('a lease held by another ingest refuses with StreamBusy; no answer refuses as unavailable; neither reopens the show', async () => {
    const busy = admission({ lease: 'held' });
    await expect(busy.admit(publish)).rejects.toBeInstanceOf(StreamBusy);
    const silent = admission({ lease: 'unavailable' });
    await expect(silent.admit(publish)).rejects.toThrow(new AuthServiceUnavailable('the platform did not answer the stream lease'));
    expect([...busy.reopened, ...silent.reopened]).toEqual([]);
  });

  it('a check that ends while the server shuts down refuses, before any lease is asked', async () => {
    let answer!: () => void;
    const { admit, asked, shutDown } = admission({ check: () => new Promise((resolve) => (answer = () => resolve({}))) });
    const admitting = admit(publish);
    shutDown();
    answer();
    await expect(admitting).rejects.toThrow(new AuthServiceUnavailable('ingest server shutting down'));
    expect(asked).toEqual([]);
  });

  it('a "no" past the free failures is answered late and logged so; a check with no answer is not braked', async () => {
    const no = admission({ check: async () => Promise.reject(new ErrUnauthorized(INVALID_CREDENTIALS)), freeFailures: 1 });
    await expect(no.admit(publish)).rejects.toBeInstanceOf(ErrUnauthorized);
    expect(no.lines.filter((line) => line.msg === 'auth failure answered late')).toEqual([]);
    await expect(no.admit(publish)).rejects.toBeInstanceOf(ErrUnauthorized);
    expect(no.lines.filter((line) => line.msg === 'auth failure answered late')).toMatchObject([{ remote_addr: '10.0.0.1:5000', delay_ms: 20 }]);

    const down = admission({ check: async () => Promise.reject(new AuthServiceUnavailable('callback timed out')) });
    await expect(down.admit(publish)).rejects.toBeInstanceOf(AuthServiceUnavailable);
    await expect(down.admit(publish)).rejects.toBeInstanceOf(AuthServiceUnavailable);
    expect(down.lines.filter((line) => line.msg === 'auth failure answered late')).toEqual([]);
  });
});
