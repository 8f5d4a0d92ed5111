import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccessRequest, Action } from '../../ingest-container/src/auth/access-request';
import { AuthServiceUnavailable, ErrUnauthorized, INVALID_CREDENTIALS } from '../../ingest-container/src/auth/errors';
import { createLogger } from '../../ingest-container/src/log';
import { createRecheckRound, startRecheck } from '../../ingest-container/src/recheck';

/** An admitted connection that records how it was denied. */
function admitted(id: string, action: Action, streamName = id) {
  const denied: string[] = [];
  const accessRequest: AccessRequest = { action, app: 'live', streamName, token: 't', remoteAddr: '10.0.0.1:5000' };
  return { id, streamPath: `/live/${streamName}`, accessRequest, socket: { destroyed: false }, denied, deny: (_action: Action, description: string) => void denied.push(description) };
}
type Connection = ReturnType<typeof admitted>;

/** A round over these publishers and players, the callback answering per stream name. */
function round(publishers: Connection[], players: Connection[], answers: Record<string, Error | undefined>) {
  const onAir = [...publishers];
  const cut: string[] = [];
  const reported: string[] = [];
  const asked: AccessRequest[] = [];
  const run = createRecheckRound<Connection>({
    authenticator: {
      check: async (request) => {
        asked.push(request);
        const answer = answers[request.streamName];
        if (answer) throw answer;
        return {};
      },
    },
    onAir: () => onAir,
    players: () => players,
    cutOff: (streamPath) => {
      cut.push(streamPath);
      onAir.splice(onAir.findIndex((p) => p.streamPath === streamPath), 1);
    },
    authFailed: (connection, _request, _error, recheck) => void reported.push(`${connection.id} recheck=${recheck}`),
    log: createLogger('error', () => undefined),
  });
  return { run, cut, reported, asked, onAir };
}

const no = () => new ErrUnauthorized(INVALID_CREDENTIALS);

describe('the callback recheck', () => {
  it('asks again for every publisher on air and every player, marked as a recheck', async () => {
    const { run, asked } = round([admitted('p', 'publish')], [admitted('v', 'play')], {});
    await run();
    expect(asked.map((request) => [request.streamName, request.recheck])).toEqual([['p', true], ['v', true]]);
  });

  it('a "no" cuts a publisher (its show ends at once) and denies a player, each reported as a recheck failure', async () => {
    const publisher = admitted('p', 'publish');
    const player = admitted('v', 'play');
    const { run, cut, reported } = round([publisher], [player], { p: no(), v: no() });
    await run();
    expect(publisher.denied).toEqual([INVALID_CREDENTIALS]);
    expect(player.denied).toEqual([INVALID_CREDENTIALS]);
    expect(cut).toEqual(['/live/p']);
    expect(reported).toEqual(['p recheck=true', 'v recheck=true']);
  });

  it('no answer is not a no: the connections stay', async () => {
    const publisher = admitted('p', 'publish');
    const player = admitted('v', 'play');
    const { run, cut, reported } = round([publisher], [player], { p: new AuthServiceUnavailable('timeout'), v: new AuthServiceUnavailable('timeout') });
    await run();
    expect([...publisher.denied, ...player.denied, ...cut, ...reported]).toEqual([]);
  });

  it('a connection gone while the round asked is left alone: a closed player, a publisher no longer on air', async () => {
    const player = admitted('v', 'play');
    player.socket.destroyed = true;
    const publisher = admitted('p', 'publish');
    const { run, cut, reported, onAir } = round([publisher], [player], { p: no(), v: no() });
    onAir.length = 0;
    await run();
    expect([...publisher.denied, ...player.denied, ...cut, ...reported]).toEqual([]);
  });
});

describe('the recheck timer', () => {
  afterEach(() => vi.useRealTimers());

  it('runs only in mode callback with an interval; another mode gets a warning and no rounds', async () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    let rounds = 0;
    const off = startRecheck(1_000, 'token', createLogger('warn', (line) => void lines.push(line)), async () => void rounds++);
    await vi.advanceTimersByTimeAsync(5_000);
    off.stop();
    expect(rounds).toBe(0);
    expect(lines.join('')).toContain('recheck applies to mode callback only; off');
  });

  it('never stacks rounds: a slow round lets the ticks during it pass, and idle waits for it', async () => {
    vi.useFakeTimers();
    let started = 0;
    let finish!: () => void;
    const recheck = startRecheck(1_000, 'callback', createLogger('error', () => undefined), () => {
      started++;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await vi.advanceTimersByTimeAsync(3_500);
    expect(started).toBe(1);
    let idle = false;
    const waiting = recheck.idle().then(() => (idle = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(idle).toBe(false);
    finish();
    await waiting;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(2);
    recheck.stop();
    finish();
  });
});
