import type { Logger } from '../log';
import type { AccessGrant, AccessRequest } from './access-request';
import { askCallback } from './callback';
import { TokenFile } from './token-file';
import { TokenTable } from './token-table';

export const AUTH_MODES = ['none', 'token', 'file', 'callback'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export type AuthConfig =
  | { mode: 'none' }
  | { mode: 'token'; tokens: ReadonlyMap<string, string> }
  | { mode: 'file'; path: string }
  | {
      mode: 'callback';
      url: string;
      timeoutMs: number;
      /** Sent as `X-Internal-Api-Key` so the platform answers only its own ingest. */
      apiKey?: string;
    };

/**
 * The one question the RTMP side asks. `check` resolves to allow, or throws
 * ErrUnauthorized (the answer is no) or AuthServiceUnavailable (no answer);
 * both deny.
 */
export interface Authenticator {
  readonly mode: AuthMode;
  check(request: AccessRequest): Promise<AccessGrant>;
  /** Mode `file` re-reads its file (SIGHUP); a no-op elsewhere. Throws when the file is unusable, keeping the old map. */
  reload(): Promise<void>;
}

/** `log`: what the callback's answers hold that cannot be used (a malformed watermark) is logged there. */
export async function createAuthenticator(config: AuthConfig, log?: Pick<Logger, 'warn'>): Promise<Authenticator> {
  switch (config.mode) {
    case 'none':
      return { mode: 'none', check: async () => ({}), reload: async () => undefined };
    case 'token': {
      const table = new TokenTable(config.tokens);
      return { mode: 'token', check: async (request) => (table.check(request), {}), reload: async () => undefined };
    }
    case 'file': {
      const file = await TokenFile.load(config.path);
      return { mode: 'file', check: async (request) => (file.check(request), {}), reload: () => file.reload() };
    }
    case 'callback':
      return {
        mode: 'callback',
        check: (request) => askCallback(config, request, log),
        reload: async () => undefined,
      };
  }
}
