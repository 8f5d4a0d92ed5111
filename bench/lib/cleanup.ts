/**
 * Every benchmark runs through `benchmark`: what it starts (a local system,
 * servers, temporary folders) is registered with `defer` right after it
 * started, and child processes (nginx, ffmpeg, wrk) with `owned` as they are
 * spawned; all of it is stopped however the benchmark ends: done, failed (the
 * failure is printed and the exit code is 1) or interrupted (Ctrl-C,
 * SIGTERM). A child process outlives a Node process that merely exits, so
 * nothing else would stop it.
 */
import type { ChildProcess } from 'node:child_process';

export type Defer = (cleanup: () => unknown) => void;

const children = new Set<ChildProcess>();

/** A child process of the benchmark: stopped (SIGTERM) when the benchmark ends if it still runs. */
export function owned<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function stopChildren(): Promise<void> {
  return Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          child.once('exit', () => {
            clearTimeout(killer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  ).then(() => undefined);
}

export async function benchmark(main: (defer: Defer) => Promise<void>): Promise<void> {
  const cleanups: (() => unknown)[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const cleanup of [...cleanups.reverse(), stopChildren]) {
        try {
          await cleanup();
        } catch (error) {
          console.error(`cleanup failed: ${error instanceof Error ? error.message : error}`);
        }
      }
    })());
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`${signal}: stopping what the benchmark started`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await main((cleanup) => void cleanups.push(cleanup));
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  } finally {
    await cleanUp();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}
