/**
 * The staff API as the tracer uses it: sign in (with the second factor when the account has it on),
 * then JSON calls with the session cookie, and plain downloads of signed URLs.
 */
export class ApiError extends Error {}

export interface StaffCredentials {
  username: string;
  password: string;
  /** Asked only when the sign-in answers that a second factor is needed. */
  askCode(): Promise<string>;
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .find((pair) => pair.startsWith(`${name}=`)) ?? null;

async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    return text.slice(0, 200);
  }
}

export class StaffApi {
  private constructor(
    private readonly base: string,
    private readonly cookie: string,
  ) {}

  /** Signs in as staff: password, then the code when the login answers `secondFactorRequired`. */
  static async signIn(apiUrl: string, credentials: StaffCredentials): Promise<StaffApi> {
    const base = apiUrl.replace(/\/+$/, '');
    const post = (path: string, body: unknown, cookie?: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    const login = await post('/api/admin/login', { username: credentials.username, password: credentials.password });
    if (!login.ok) throw new ApiError(`sign-in as ${credentials.username} refused: ${login.status} ${await errorText(login)}`);
    const answer = (await login.json()) as { success?: boolean; secondFactorRequired?: boolean; enrolmentRequired?: boolean };
    let session = cookieOf(login, 'stagedoor_admin');
    if (answer.secondFactorRequired) {
      const challenge = cookieOf(login, 'stagedoor_2fa');
      if (!challenge) throw new ApiError('sign-in asked for a second factor without its challenge cookie');
      const code = (await credentials.askCode()).trim();
      const second = await post('/api/admin/login/second-factor', /^\d{6}$/.test(code) ? { code } : { recoveryCode: code }, challenge);
      if (!second.ok) throw new ApiError(`second factor refused: ${second.status} ${await errorText(second)}`);
      session = cookieOf(second, 'stagedoor_admin');
    }
    if (answer.enrolmentRequired) throw new ApiError(`${credentials.username} must set up two-factor sign-in in the console first`);
    if (!session) throw new ApiError('sign-in gave no session cookie');
    return new StaffApi(base, session);
  }

  async get<T>(path: string): Promise<T> {
    return this.answer<T>(await fetch(`${this.base}${path}`, { headers: { cookie: this.cookie } }), path);
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${this.base}${path}`, { method: 'POST', headers: { cookie: this.cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return this.answer<T>(response, path);
  }

  private async answer<T>(response: Response, path: string): Promise<T> {
    if (!response.ok) throw new ApiError(`${path}: ${response.status} ${await errorText(response)}`);
    return (await response.json()) as T;
  }
}

/**
 * A signed URL's bytes; null when the object is not there (S3 answers 404, or 403 where the signer may
 * not list the folder): a segment the ingest never stored is left out, not the whole trace.
 */
export async function download(url: string): Promise<Buffer | null> {
  const response = await fetch(url);
  if (response.status === 404 || response.status === 403) return null;
  if (!response.ok) throw new ApiError(`download failed: ${response.status} ${new URL(url).pathname}`);
  return Buffer.from(await response.arrayBuffer());
}
