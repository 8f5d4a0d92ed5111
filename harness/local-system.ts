import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { call } from './http';
import { valueOf } from './wait';

export interface LocalSystem {
  /** URLs from the `ready` line: `api`, `media`, `rtmp`, `srt`, and whatever else it prints. */
  urls: Record<string, string>;
  adminPassword: string;
  internalApiKey: string;
  /** `ORDER_WEBHOOK_SECRET`: signs deliveries to `POST /api/webhooks/orders`. */
  orderWebhookSecret: string;
  /** The program's process id (its ffmpeg packagers are its children). */
  pid: number;
  /** Everything the process printed so far. */
  output(): string;
  /** An admin API call with a session (logs in on first use); throws unless the answer is 2xx, returns the JSON body. */
  admin(method: string, path: string, json?: unknown): Promise<any>;
  /** The pid of the background-job worker the system runs as a child process, or null while none runs. */
  jobWorkerPid(): number | null;
  /** Pauses the job worker (SIGSTOP, once one runs); the function returned lets it go on (a worker gone meanwhile is no error). */
  pauseJobWorker(): Promise<() => void>;
  stop(): Promise<void>;
}

/** Child processes of `parent` whose command line contains `marker` (Linux: /proc). */
function childrenOf(parent: number, marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 4th field of `stat`, after the command in parentheses.
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `npm start`'s program as a child process, exactly as a user would, on
 * free ports and in-memory data, and waits for its `ready` line.
 */
export async function startLocalSystem(env: Record<string, string> = {}, options: { root?: string } = {}): Promise<LocalSystem> {
  const adminPassword = `pw-${randomBytes(8).toString('hex')}`;
  const internalApiKey = `ik-${randomBytes(16).toString('hex')}`;
  const orderWebhookSecret = `ow-${randomBytes(16).toString('hex')}`;
  const launch = () =>
    spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
      cwd: options.root ?? root,
      env: {
        ...process.env,
        API_PORT: '0',
        MEDIA_PORT: '0',
        RTMP_PORT: '0',
        SRT_PORT: '0',
        MAIL_PORT: '0',
        DATA_DIR: 'memory',
        LOG_LEVEL: 'warn',
        ADMIN_PASSWORD: adminPassword,
        INTERNAL_API_KEY: internalApiKey,
        ORDER_WEBHOOK_SECRET: orderWebhookSecret,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  // Free ports are picked before they are bound, so a parallel suite can take one in between; such a
  // start is tried again (a few times) on newly picked ports, never on ports the test chose.
  const portsPicked = !['API_PORT', 'MEDIA_PORT', 'RTMP_PORT', 'SRT_PORT', 'MAIL_PORT'].some((name) => name in env);
  for (let attempt = 1; ; attempt += 1) {
    const child = launch();
    try {
      const started = await untilReady(child);
      return withClient(child, started, { adminPassword, internalApiKey, orderWebhookSecret });
    } catch (error) {
      const lostPortRace = error instanceof StartFailed && error.exitCode !== null && /EADDRINUSE/.test(error.output);
      if (!(portsPicked && lostPortRace && attempt < 3)) throw error;
    }
  }
}

class StartFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly output: string,
  ) {
    super(message);
  }
}

/** Waits for the `ready` line; the URLs it printed, and the output that keeps growing. */
function untilReady(child: ChildProcess): Promise<{ urls: Record<string, string>; output: () => string }> {
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nothing of a start that never got ready is left running.
      child.kill('SIGKILL');
      reject(new StartFailed(`local system not ready after 60 s:\n${output}`, null, output));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new StartFailed(`local system exited with ${code}:\n${output}`, code, output));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (line.startsWith('ready ')) {
        clearTimeout(timer);
        resolve({ urls: JSON.parse(line.slice('ready '.length)), output: () => output });
      }
    });
  });
}

function withClient(
  child: ChildProcess,
  { urls, output }: { urls: Record<string, string>; output: () => string },
  { adminPassword, internalApiKey, orderWebhookSecret }: { adminPassword: string; internalApiKey: string; orderWebhookSecret: string },
): LocalSystem {
  let cookie: string | undefined;
  const admin = async (method: string, path: string, json?: unknown) => {
    if (!cookie) {
      const login = await call('POST', `${urls.api}/api/admin/login`, { json: { password: adminPassword } });
      if (login.status !== 200) throw new Error(`admin login: ${login.status} ${login.text}`);
      cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    }
    const res = await call(method, `${urls.api}${path}`, { json, headers: { cookie } });
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    // A CSV export is text.
    return res.body ?? res.text;
  };
  const jobWorkerPid = () => childrenOf(child.pid!, 'job-worker.ts')[0] ?? null;
  return {
    urls,
    adminPassword,
    internalApiKey,
    orderWebhookSecret,
    pid: child.pid!,
    output,
    admin,
    jobWorkerPid,
    async pauseJobWorker() {
      const worker = await valueOf('a job worker', jobWorkerPid);
      process.kill(worker, 'SIGSTOP');
      return () => {
        try {
          process.kill(worker, 'SIGCONT');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
