import type { AccessGrant } from '../auth/access-request';

/** What a claim needs of a play connection. */
export interface PlayConnection {
  readonly streamPath: string;
  readonly socket: { readonly destroyed: boolean; once(event: 'close', listener: () => void): unknown };
}

/**
 * One play connection per viewer session and stream: the callback's grant
 * names the viewer session, and a second connection of that session is
 * refused while the first still plays. A grant that names no session is not limited.
 */
export function createPlayClaims() {
  /** `<streamPath>#<viewer session>` → the connection playing it. */
  const playing = new Map<string, PlayConnection>();

  /** Takes the grant's viewer session for this connection; false when another live connection plays it. */
  return function claimPlay(connection: PlayConnection, grant: AccessGrant): boolean {
    if (!grant.session) return true;
    const key = `${connection.streamPath}#${grant.session}`;
    const holder = playing.get(key);
    if (holder && holder !== connection && !holder.socket.destroyed) return false;
    playing.set(key, connection);
    connection.socket.once('close', () => playing.get(key) === connection && playing.delete(key));
    return true;
  };
}
