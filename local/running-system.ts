import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * While `npm start` runs on a data folder, it leaves where its embedded DynamoDB listens in
 * `DATA_DIR/running.json` (mode 600), so that `npm run admin` can work on the same data: the
 * LevelDB folder itself is locked by the running process.
 */
export interface RunningSystem {
  pid: number;
  dynamoEndpoint: string;
}

const fileIn = (dataDir: string) => join(dataDir, 'running.json');

export function announceRunningSystem(dataDir: string, dynamoEndpoint: string): () => void {
  const file = fileIn(dataDir);
  writeFileSync(file, JSON.stringify({ pid: process.pid, dynamoEndpoint } satisfies RunningSystem), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** The system running on this folder, or null when none does (a stale file from a killed one is ignored). */
export function runningSystemOn(dataDir: string): RunningSystem | null {
  let running: RunningSystem;
  try {
    running = JSON.parse(readFileSync(fileIn(dataDir), 'utf8')) as RunningSystem;
  } catch {
    return null;
  }
  try {
    process.kill(running.pid, 0);
    return running;
  } catch {
    return null;
  }
}

/**
 * A second `npm start` on a folder in use would fail deep inside LevelDB ("Database is closed");
 * it stops first with what to do instead.
 */
export function refuseSecondSystem(dataDir: string): void {
  const running = runningSystemOn(dataDir);
  if (running) {
    throw new Error(`another Stagedoor (pid ${running.pid}) already runs on ${dataDir}: stop it first, or set DATA_DIR to another folder`);
  }
}
