import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createPlayClaims } from '../../ingest-container/src/rtmp/play-claims';

/** A play connection whose socket can be destroyed or closed by hand. */
function connection(streamPath = '/live/show') {
  const socket = Object.assign(new EventEmitter(), { destroyed: false });
  return { streamPath, socket, close: () => ((socket.destroyed = true), socket.emit('close')) };
}

describe('play claims: one play connection per viewer session and stream', () => {
  it('a second connection of the same viewer session is refused while the first plays; the first may claim again', () => {
    const claim = createPlayClaims();
    const first = connection();
    expect(claim(first, { session: 'v1' })).toBe(true);
    expect(claim(connection(), { session: 'v1' })).toBe(false);
    expect(claim(first, { session: 'v1' })).toBe(true);
  });

  it('other viewer sessions, other streams and grants naming no session are not limited', () => {
    const claim = createPlayClaims();
    expect(claim(connection(), { session: 'v1' })).toBe(true);
    expect(claim(connection(), { session: 'v2' })).toBe(true);
    expect(claim(connection('/live/other'), { session: 'v1' })).toBe(true);
    expect(claim(connection(), {})).toBe(true);
    expect(claim(connection(), {})).toBe(true);
  });

  it('once the playing connection closes, or its socket is destroyed before its close, the session can play again', () => {
    const claim = createPlayClaims();
    const first = connection();
    claim(first, { session: 'v1' });
    first.close();
    const second = connection();
    expect(claim(second, { session: 'v1' })).toBe(true);
    second.socket.destroyed = true;
    expect(claim(connection(), { session: 'v1' })).toBe(true);
  });
});
