import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { streamKeyOf, type AccessRequest } from './access-request';
import { invalidCredentials, tokenMissing } from './errors';

const digest = (value: string | Buffer) => createHash('sha256').update(value).digest();

/**
 * Stream key → token, compared in constant time. Both sides are hashed first
 * so the compare does not leak the token's length either, and an unknown key
 * is compared against a random value so it costs the same as a wrong token.
 */
export class TokenTable {
  private readonly digests: ReadonlyMap<string, Buffer>;
  private static readonly unknownKey = digest(randomBytes(32));

  constructor(tokens: ReadonlyMap<string, string>) {
    this.digests = new Map([...tokens].map(([key, token]) => [key, digest(token)]));
  }

  /** Throws ErrUnauthorized; a key with no configured token is denied. */
  check(request: AccessRequest): void {
    if (request.token === undefined) throw tokenMissing();
    const expected = this.digests.get(streamKeyOf(request));
    const matches = timingSafeEqual(digest(request.token), expected ?? TokenTable.unknownKey);
    if (!matches || expected === undefined) throw invalidCredentials();
  }
}
