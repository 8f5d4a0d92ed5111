import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import readline from 'node:readline';
import type { Logger } from '../log';
import type { ListenAddress } from '../rtmp/listeners';

/** A caller in its handshake, waiting for `accept` or `reject`. */
export interface SrtCaller {
  id: number;
  streamId: string;
  /** `<ip>:<port>` of the caller's UDP socket. */
  peer: string;
}

/** `clean`: the caller closed (shutdown message); `dead`: silent past the peer idle timeout; `cut`: we closed it. */
export type SrtEnd = 'clean' | 'dead' | 'cut';

export interface SrtGateEvents {
  /** Must end in `accept` or `reject` quickly: the gate holds libsrt's receive thread until then (3 s at most). */
  caller(caller: SrtCaller): void;
  /** An accepted caller's MPEG-TS; destroying the socket closes the SRT connection. */
  media(id: number, socket: net.Socket): void;
  ended(id: number, how: SrtEnd): void;
  /** An accepted caller's handshake failed after our accept (its key material did not match the passphrase). */
  failed(id: number): void;
}

export interface SrtGate {
  port: number;
  accept(id: number, passphrase: string | undefined): void;
  reject(id: number, reason: number): void;
  close(): Promise<void>;
}

/** Where bootstrap compiles the gate; the container image sets SRT_GATE_PATH. */
export const defaultGatePath = () => process.env.SRT_GATE_PATH || join(process.cwd(), 'ingest-container/srt/build/srt-gate');

/** After a crash the gate is started again on the same port this much later (a crash loop stays slow). */
const RESTART_DELAY_MS = 1_000;

/**
 * Runs srt-gate (ingest-container/srt/srt-gate.c) and speaks its line protocol: its stdout names
 * callers and ends, our stdin answers, and each admitted caller's packets arrive on a Unix socket
 * connection whose first line names it. A gate that dies is started again on the same port: its callers
 * were in it, so their media connections end without a word, which counts as dead (the reconnect window).
 */
export async function startSrtGate(
  options: { listen: ListenAddress; latencyMs: number; peerIdleMs: number; gatePath?: string },
  events: SrtGateEvents,
  log: Logger,
): Promise<SrtGate> {
  const socketPath = join(tmpdir(), `stagedoor-srt-${process.pid}-${randomBytes(6).toString('hex')}.sock`);
  const media = net.createServer((socket) => readHeader(socket, events, log));
  await new Promise<void>((resolve, reject) => media.once('error', reject).listen(socketPath, resolve));
  const launch = (port: number) =>
    launchGate({ ...options, listen: { ...options.listen, port }, socketPath }, events, log).catch((error) => {
      media.close();
      rmSync(socketPath, { force: true });
      throw error;
    });
  let closing = false;
  let current = await launch(options.listen.port);
  const { port } = current;
  const supervise = (gate: RunningGate) =>
    gate.child.once('exit', (code, signal) => {
      if (closing) return;
      log.error('srt-gate exited, starting it again', { code, signal });
      const again = () =>
        setTimeout(() => {
          if (closing) return;
          launch(port).then(
            (next) => ((current = next), supervise(next), log.info('srt-gate listening again', { port })),
            (error: unknown) => (log.error('srt-gate did not start again', { error: String(error) }), again()),
          );
        }, RESTART_DELAY_MS).unref();
      again();
    });
  supervise(current);
  return {
    port,
    accept: (id, passphrase) => answer(current.child, `accept ${id}${passphrase ? ` ${passphrase}` : ''}`),
    reject: (id, reason) => answer(current.child, `reject ${id} ${reason}`),
    async close() {
      closing = true;
      current.child.kill('SIGKILL');
      await new Promise((resolve) => media.close(resolve));
      rmSync(socketPath, { force: true });
    },
  };
}

interface RunningGate {
  child: ChildProcessWithoutNullStreams;
  port: number;
}

/** One srt-gate process, once it listens. */
async function launchGate(
  options: { listen: ListenAddress; latencyMs: number; peerIdleMs: number; gatePath?: string; socketPath: string },
  events: SrtGateEvents,
  log: Logger,
): Promise<RunningGate> {
  const host = options.listen.host ?? '::';
  const args = [host, String(options.listen.port), options.socketPath, String(options.latencyMs), String(options.peerIdleMs)];
  const child = spawn(options.gatePath ?? defaultGatePath(), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (data: Buffer) => log.debug('srt-gate', { output: data.toString().trim() }));
  child.stdin.on('error', () => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`srt-gate exited (${code}) before listening`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => onLine(line, { resolve, reject, events, log }));
  });
  return { child, port };
}

function answer(child: ChildProcessWithoutNullStreams, line: string): void {
  if (!child.stdin.destroyed) child.stdin.write(`${line}\n`);
}

function onLine(
  line: string,
  ctx: { resolve: (port: number) => void; reject: (error: Error) => void; events: SrtGateEvents; log: Logger },
): void {
  let message: { type?: string; id?: number; port?: number; streamid?: string; peer?: string; how?: SrtEnd; message?: string };
  try {
    message = JSON.parse(line);
  } catch {
    return ctx.log.warn('srt-gate said something unreadable', { line });
  }
  switch (message.type) {
    case 'listening':
      return ctx.resolve(message.port!);
    case 'error':
      return ctx.reject(new Error(`srt-gate: ${message.message}`));
    case 'caller':
      return ctx.events.caller({ id: message.id!, streamId: message.streamid ?? '', peer: message.peer ?? '' });
    case 'end':
      return ctx.events.ended(message.id!, message.how ?? 'dead');
    case 'failed':
      return ctx.events.failed(message.id!);
  }
}

/** The first line of a media connection names the caller; the rest is its MPEG-TS. */
function readHeader(socket: net.Socket, events: SrtGateEvents, log: Logger): void {
  let head = Buffer.alloc(0);
  const onData = (data: Buffer) => {
    head = Buffer.concat([head, data]);
    const newline = head.indexOf(10);
    if (newline === -1) return;
    socket.off('data', onData);
    socket.pause();
    let id: number;
    try {
      id = (JSON.parse(head.subarray(0, newline).toString()) as { id: number }).id;
    } catch {
      log.warn('srt-gate media connection without a header');
      return socket.destroy();
    }
    const rest = head.subarray(newline + 1);
    if (rest.length > 0) socket.unshift(rest);
    events.media(id, socket);
  };
  socket.on('data', onData);
}
