import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JobWorkerWiring } from '../functions/compose/job-worker';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = fileURLToPath(new URL('./job-worker.ts', import.meta.url));

export interface JobWorkerProcess {
  close(): Promise<void>;
}

/**
 * Keeps one local job worker (local/job-worker.ts) running as a child process on
 * `wiring`, each invocation stopped after `timeoutSeconds`: when it dies (killed,
 * crashed, timed out) a new one starts, as Lambda starts a new instance; one that
 * keeps dying at once is started again more and more slowly.
 */
export function startJobWorkerProcess(wiring: JobWorkerWiring, timeoutSeconds: number): JobWorkerProcess {
  let child: ChildProcess | undefined;
  let closing = false;
  let quickDeaths = 0;
  let restart: NodeJS.Timeout | undefined;

  const start = () => {
    const startedAt = Date.now();
    child = spawn(process.execPath, ['--import', 'tsx', entry, JSON.stringify(wiring), String(timeoutSeconds)], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('exit', (code, signal) => {
      if (closing) return;
      quickDeaths = Date.now() - startedAt < 10_000 ? quickDeaths + 1 : 0;
      const delay = Math.min(10_000, 250 * 2 ** quickDeaths);
      process.stderr.write(`job worker ended (${signal ?? `exit ${code}`}): starting a new one in ${delay} ms\n`);
      restart = setTimeout(start, delay);
    });
  };
  start();

  return {
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        clearTimeout(restart);
        if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
