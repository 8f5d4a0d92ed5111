/** An ingest process of its own (`npm run ingest`, the container's program) against a local system's API and S3. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LocalSystem } from '../../harness/local-system';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface IngestProcess {
  /** `rtmp://127.0.0.1:<port>/live` */
  url: string;
  child: ChildProcess;
  kill(): Promise<void>;
}

export async function startIngest(system: LocalSystem): Promise<IngestProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'ingest-container/src/main.ts', '-listen', '127.0.0.1:0', '-auth-mode', 'callback',
      '-auth-callback', `${system.urls.api}/api/internal/rtmp-auth`, '-s3-bucket', 'stagedoor-media', '-api-url', system.urls.api!],
    {
      cwd: root,
      env: {
        ...process.env,
        INTERNAL_API_KEY: system.internalApiKey,
        AWS_ENDPOINT_URL_S3: system.urls.s3,
        S3_FORCE_PATH_STYLE: 'true',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        INGEST_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`ingest exited with ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (process.env.INGEST_TEST_LOG) process.stderr.write(`${line}\n`);
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line);
      if (entry.msg === 'rtmp ingest listening') resolve(`${entry.url}/live`);
    });
  });
  return {
    url,
    child,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

