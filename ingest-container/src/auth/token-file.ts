import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { STREAM_KEY_PATTERN, type AccessRequest } from './access-request';
import { TokenTable } from './token-table';

const tokenFileSchema = z.record(
  z.string().regex(STREAM_KEY_PATTERN, 'member names must be stream keys <app>/<streamName>'),
  z.string().min(1, 'tokens must not be empty'),
);

export async function readTokenFile(path: string): Promise<TokenTable> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON`, { cause: error });
  }
  const parsed = tokenFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid token file'}`);
  }
  return new TokenTable(new Map(Object.entries(parsed.data)));
}

/**
 * Mode `file`: the table is replaced as a whole on reload, so a check sees
 * either the old map or the new one, never a mix; a file that fails to load
 * leaves the old map in place (the error goes to the caller, who logs it).
 */
export class TokenFile {
  private constructor(
    readonly path: string,
    private table: TokenTable,
  ) {}

  static async load(path: string): Promise<TokenFile> {
    return new TokenFile(path, await readTokenFile(path));
  }

  check(request: AccessRequest): void {
    this.table.check(request);
  }

  async reload(): Promise<void> {
    this.table = await readTokenFile(this.path);
  }
}
