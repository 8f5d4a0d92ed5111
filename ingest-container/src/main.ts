/**
 * The ingest server as a program: `npm run ingest -- <flags>` and the
 * container's entry point. Flags (or their env vars) → options → server;
 * signals: SIGHUP re-reads the token file, SIGINT/SIGTERM shut down cleanly.
 */
import { parseCli, usage, UsageError } from './config/cli';
import { createLogger } from './log';
import { startIngestServer } from './server';

async function main(argv: string[]): Promise<void> {
  if (argv.includes('-h') || argv.includes('-help') || argv.includes('--help')) {
    process.stdout.write(usage());
    return;
  }
  const options = parseCli(argv, process.env);
  const log = createLogger(options.logLevel ?? 'info');
  const server = await startIngestServer({ ...options, log });

  process.on('SIGHUP', () => void server.reloadAuth());
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (error) => {
        log.error('shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(error instanceof UsageError ? `${error.message}\n\n${usage()}` : `ingest failed to start: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(2);
});
