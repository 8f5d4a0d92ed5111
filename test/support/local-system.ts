import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { call } from './http';
import { valueOf } from './wait';

export interface LocalSystem {
  /** URLs from the `ready` line: `api`, `media`, `rtmp`, and whatever else it prints. */
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

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `npm start`'s program as a child process, exactly as a user would, on
 * free ports and in-memory data, and waits for its `ready` line.
 */
export async function startLocalSystem(env: Record<string, string> = {}, options: { root?: string } = {}): Promise<LocalSystem> {
  const adminPassword = `pw-${randomBytes(8).toString('hex')}`;
  const internalApiKey = `ik-${randomBytes(16).toString('hex')}`;
  const orderWebhookSecret = `ow-${randomBytes(16).toString('hex')}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    cwd: options.root ?? root,
    env: {
      ...process.env,
      API_PORT: '0',
      MEDIA_PORT: '0',
      RTMP_PORT: '0',
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
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nothing of a start that never got ready is left running.
      child.kill('SIGKILL');
      reject(new Error(`local system not ready after 60 s:\n${output}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local system exited with ${code}:\n${output}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (line.startsWith('ready ')) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice('ready '.length)));
      }
    });
  });
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
    output: () => output,
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
