import type net from 'node:net';
import { GatedRtmpSession, type SessionGate } from './gated-session';

/** The open RTMP connections of one server, each a gated session. */
export function createConnections(gate: SessionGate) {
  const sessions = new Set<GatedRtmpSession>();
  return {
    /** A listener's new connection becomes a gated session. */
    accept(socket: net.Socket): void {
      // RTMP commands are small messages answered one by one; Nagle would hold each answer for a delayed ACK.
      socket.setNoDelay(true);
      const session = new GatedRtmpSession(socket, gate);
      sessions.add(session);
      socket.once('close', () => sessions.delete(session));
      session.run();
    },
    /** Connections admitted to play and still open. */
    players: (): GatedRtmpSession[] => [...sessions].filter((session) => session.admitted === 'play' && !session.socket.destroyed),
    destroyAll(): void {
      for (const session of sessions) session.socket.destroy();
    },
  };
}
