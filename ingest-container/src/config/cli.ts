import { STREAM_KEY_PATTERN } from '../auth/access-request';
import { AUTH_MODES, type AuthConfig, type AuthMode } from '../auth/authenticator';
import { parseLadder } from '../hls/ffmpeg-args';
import type { HlsConfig } from '../hls/packager';
import { folderStore, s3Store } from '../../../recording/store';
import { HOOK_EVENTS, type HookEvent } from '../hooks/webhooks';
import { isLogLevel } from '../log';
import type { IngestOptions } from '../server';
import { parseBoolean, parseDuration, parseListen, positiveDuration, splitList, splitPair } from './values';

interface FlagSpec {
  env: string;
  help: string;
  repeatable?: boolean;
  default?: string;
}

/** Every flag has an environment variable (ECS task definitions set env, not argv); a flag wins over its variable. */
export const FLAGS = {
  listen: { env: 'INGEST_LISTEN', default: ':1935', help: 'RTMP listen address; empty turns plain RTMP off' },
  'tls-listen': { env: 'INGEST_TLS_LISTEN', help: 'RTMPS listen address, e.g. :1936 (needs -tls-cert and -tls-key)' },
  'tls-cert': { env: 'INGEST_TLS_CERT', help: 'PEM certificate (chain) for RTMPS' },
  'tls-key': { env: 'INGEST_TLS_KEY', help: 'PEM private key for RTMPS' },
  'srt-listen': { env: 'INGEST_SRT_LISTEN', help: 'SRT listen address (UDP), e.g. :9000; off unless given' },
  'srt-passphrase': { env: 'INGEST_SRT_PASSPHRASE', help: 'SRT passphrase (10-79 characters) callers must encrypt with, modes none/token/file (callback: the platform answers it); prefer the env var' },
  'srt-latency': { env: 'INGEST_SRT_LATENCY', default: '200ms', help: 'SRT receiver latency' },
  'auth-mode': { env: 'INGEST_AUTH_MODE', default: 'none', help: 'none | token | file | callback' },
  'auth-token': { env: 'INGEST_AUTH_TOKENS', repeatable: true, help: '<app>/<stream>=<token> (mode token; repeatable; env: comma-separated)' },
  'auth-file': { env: 'INGEST_AUTH_FILE', help: 'JSON token file {"<app>/<stream>": "<token>"} (mode file; SIGHUP re-reads it)' },
  'auth-callback': { env: 'INGEST_AUTH_CALLBACK', help: 'URL the check is POSTed to (mode callback)' },
  'auth-callback-timeout': { env: 'INGEST_AUTH_CALLBACK_TIMEOUT', default: '5s', help: 'timeout of the callback request' },
  'auth-recheck-interval': { env: 'INGEST_AUTH_RECHECK_INTERVAL', default: '0', help: 're-check live publishers and players this often, cut those denied (mode callback; 0 = off)' },
  'allow-play': { env: 'INGEST_ALLOW_PLAY', default: 'true', help: 'true | false: RTMP play at all (false refuses every play; viewers use HLS)' },
  'handshake-timeout': { env: 'INGEST_HANDSHAKE_TIMEOUT', default: '15s', help: 'close a connection not admitted to publish or play within this' },
  'idle-timeout': { env: 'INGEST_IDLE_TIMEOUT', default: '60s', help: 'close a connection with no traffic for this long' },
  'hook-webhook': { env: 'INGEST_HOOK_WEBHOOKS', repeatable: true, help: '<event>=<url>, event: auth_failed (repeatable; env: comma-separated)' },
  'hook-timeout': { env: 'INGEST_HOOK_TIMEOUT', default: '5s', help: 'timeout of each webhook delivery' },
  'hls-dir': { env: 'INGEST_HLS_DIR', help: 'write HLS under this folder (streams/<name>/index.m3u8) instead of S3' },
  's3-bucket': { env: 'MEDIA_BUCKET', help: 'S3 bucket for HLS (streams/<name>/…); endpoint from AWS_ENDPOINT_URL_S3' },
  'hls-ladder': { env: 'INGEST_HLS_LADDER', default: '', help: 'adaptive ladder <height>:<kbps>,… (transcodes); empty = copy codecs' },
  'hls-segment': { env: 'INGEST_HLS_SEGMENT', default: '1s', help: 'target segment duration; video with keyframes further apart is re-encoded (see -hls-reencode)' },
  'hls-reencode': { env: 'INGEST_HLS_REENCODE', default: 'auto', help: 'auto | off: re-encode the video of a publisher whose keyframes are further apart than a segment (off: always copy)' },
  'hls-dvr-window': { env: 'INGEST_HLS_DVR_WINDOW', default: '2m', help: 'seekable time behind the live edge in the live playlist' },
  'failover-silence': { env: 'INGEST_FAILOVER_SILENCE', default: '1.5s', help: 'an encoder on air silent this long hands over to a healthy standby encoder (at most 5s)' },
  'publish-grace': { env: 'INGEST_PUBLISH_GRACE', default: '30s', help: 'reconnect window: a dropped publisher may come back within this and continue the show' },
  'api-url': { env: 'INGEST_API_URL', help: 'access API base URL: the publish lease (one process on air per event), measured video and refused publishes' },
  'internal-api-key': { env: 'INTERNAL_API_KEY', help: 'X-Internal-Api-Key for -api-url and the auth callback (prefer the env var: argv is visible in ps)' },
  'log-level': { env: 'INGEST_LOG_LEVEL', default: 'info', help: 'debug | info | warn | error' },
} satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;
type Values = Partial<Record<FlagName, string[]>>;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]) => {
    const fallback = 'default' in spec && spec.default !== '' ? ` (default ${spec.default})` : '';
    return `  -${name.padEnd(24)} ${spec.help}${fallback}  [${spec.env}]`;
  });
  return `usage: npm run ingest -- [flags]\n\n${lines.join('\n')}\n\nEnv only: FFMPEG_PATH (default ffmpeg on PATH), S3_FORCE_PATH_STYLE=true, AWS_ENDPOINT_URL_S3.\n`;
}

/** `-flag value`, `--flag value`, `-flag=value`; unknown flags and stray words are errors. */
function readArgv(argv: readonly string[]): Values {
  const values: Values = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--?([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new UsageError(`unexpected argument "${arg}"`);
    const name = match[1]!;
    if (!(name in FLAGS)) throw new UsageError(`unknown flag -${name}`);
    let value = match[2];
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`flag -${name} needs a value`);
      value = argv[++i]!;
    }
    (values[name as FlagName] ??= []).push(value);
  }
  return values;
}

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): IngestOptions {
  const given = readArgv(argv);
  const all = (name: FlagName): string[] => {
    const spec: FlagSpec = FLAGS[name];
    if (given[name]) return given[name];
    const fromEnv = env[spec.env];
    if (fromEnv !== undefined) return spec.repeatable ? splitList(fromEnv) : [fromEnv];
    return spec.default === undefined ? [] : [spec.default];
  };
  const one = (name: FlagName): string | undefined => {
    const values = all(name);
    if (values.length > 1 && !(FLAGS[name] as FlagSpec).repeatable) throw new UsageError(`flag -${name} given more than once`);
    return values[0];
  };
  const wrap = <T>(name: string, parse: () => T): T => {
    try {
      return parse();
    } catch (error) {
      throw new UsageError(`-${name}: ${error instanceof Error ? error.message : error}`);
    }
  };

  const logLevel = one('log-level')!;
  if (!isLogLevel(logLevel)) throw new UsageError(`-log-level: "${logLevel}" is not one of debug, info, warn, error`);

  const listenText = one('listen')!;
  const tlsListen = one('tls-listen');
  const listen = listenText === '' ? null : wrap('listen', () => parseListen(listenText));
  let tls: IngestOptions['tls'];
  if (tlsListen) {
    const certFile = one('tls-cert');
    const keyFile = one('tls-key');
    if (!certFile || !keyFile) throw new UsageError('-tls-listen needs -tls-cert and -tls-key');
    tls = { ...wrap('tls-listen', () => parseListen(tlsListen)), certFile, keyFile };
  }
  if (!listen && !tls) throw new UsageError('nothing to listen on: -listen is empty and -tls-listen is not set');

  const auth = wrap('auth-mode', () => authConfig(one, all));
  const srt = srtConfig(one, wrap);
  const recheckIntervalMs = wrap('auth-recheck-interval', () => parseDuration(one('auth-recheck-interval')!));
  if (recheckIntervalMs > 0 && auth.mode !== 'callback') throw new UsageError('-auth-recheck-interval needs -auth-mode callback');

  const webhooks: Partial<Record<HookEvent, string[]>> = {};
  for (const entry of all('hook-webhook')) {
    const [event, url] = wrap('hook-webhook', () => splitPair(entry, 'hook-webhook'));
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw new UsageError(`-hook-webhook: unknown event "${event}" (known: ${HOOK_EVENTS.join(', ')})`);
    wrap('hook-webhook', () => new URL(url));
    (webhooks[event as HookEvent] ??= []).push(url);
  }

  const apiUrl = one('api-url');
  const apiKey = one('internal-api-key');
  if (apiUrl && !apiKey) throw new UsageError('-api-url needs -internal-api-key');
  if (apiKey && !apiUrl && auth.mode !== 'callback') throw new UsageError('-internal-api-key needs -api-url or -auth-mode callback');
  if (auth.mode === 'callback' && apiKey) auth.apiKey = apiKey;

  return {
    listen,
    tls,
    srt,
    auth,
    recheckIntervalMs,
    allowPlay: wrap('allow-play', () => parseBoolean(one('allow-play')!)),
    handshakeTimeoutMs: wrap('handshake-timeout', () => positiveDuration(one('handshake-timeout')!)),
    idleTimeoutMs: wrap('idle-timeout', () => positiveDuration(one('idle-timeout')!)),
    webhooks,
    webhookTimeoutMs: wrap('hook-timeout', () => parseDuration(one('hook-timeout')!)),
    hls: hlsConfig(one, env),
    platform: apiUrl && apiKey ? { apiUrl, apiKey } : undefined,
    publishGraceMs: wrap('publish-grace', () => parseDuration(one('publish-grace')!)),
    failoverSilenceMs: wrap('failover-silence', () => failoverSilence(one('failover-silence')!)),
    logLevel,
  };
}

/** The bound: viewers must see the standby within seconds of the encoder on air going quiet. */
function failoverSilence(value: string): number {
  const ms = positiveDuration(value);
  if (ms > 5_000) throw new Error('must be at most 5s');
  return ms;
}

function srtConfig(one: (name: FlagName) => string | undefined, wrap: <T>(name: string, parse: () => T) => T): IngestOptions['srt'] {
  const listenText = one('srt-listen');
  const passphrase = one('srt-passphrase');
  if (!listenText) {
    if (passphrase) throw new UsageError('-srt-passphrase needs -srt-listen');
    return undefined;
  }
  // libsrt's bounds; no whitespace, as it travels to srt-gate on one line.
  if (passphrase !== undefined && !/^\S{10,79}$/.test(passphrase)) throw new UsageError('-srt-passphrase: 10 to 79 characters, no spaces');
  return {
    listen: wrap('srt-listen', () => parseListen(listenText)),
    passphrase: passphrase || undefined,
    latencyMs: wrap('srt-latency', () => parseDuration(one('srt-latency')!)),
  };
}

const MODE_FLAGS: Record<string, { flag: FlagName; mode: AuthMode }> = {
  token: { flag: 'auth-token', mode: 'token' },
  file: { flag: 'auth-file', mode: 'file' },
  callback: { flag: 'auth-callback', mode: 'callback' },
};

function authConfig(one: (name: FlagName) => string | undefined, all: (name: FlagName) => string[]): AuthConfig {
  const mode = one('auth-mode') as AuthMode;
  if (!AUTH_MODES.includes(mode)) throw new Error(`"${mode}" is not one of ${AUTH_MODES.join(', ')}`);
  // Tokens given without their mode would leave the server open while the operator believes it is closed.
  for (const { flag, mode: owner } of Object.values(MODE_FLAGS)) {
    if (owner !== mode && all(flag).length > 0) throw new Error(`-${flag} applies to -auth-mode ${owner}, not ${mode}`);
  }
  switch (mode) {
    case 'none':
      return { mode };
    case 'token': {
      const tokens = new Map<string, string>();
      for (const entry of all('auth-token')) {
        const [key, token] = splitPair(entry, 'auth-token');
        if (!STREAM_KEY_PATTERN.test(key)) throw new Error(`-auth-token: "${key}" is not a stream key <app>/<stream>`);
        tokens.set(key, token);
      }
      if (tokens.size === 0) throw new Error('mode token needs at least one -auth-token <app>/<stream>=<token>');
      return { mode, tokens };
    }
    case 'file': {
      const path = one('auth-file');
      if (!path) throw new Error('mode file needs -auth-file');
      return { mode, path };
    }
    case 'callback': {
      const url = one('auth-callback');
      if (!url) throw new Error('mode callback needs -auth-callback');
      new URL(url);
      return { mode, url, timeoutMs: parseDuration(one('auth-callback-timeout')!) };
    }
  }
}

function hlsConfig(one: (name: FlagName) => string | undefined, env: NodeJS.ProcessEnv): HlsConfig | undefined {
  const dir = one('hls-dir');
  const bucket = one('s3-bucket');
  // -hls-dir wins: a developer's shell may well have MEDIA_BUCKET set.
  const store = dir ? folderStore(dir) : bucket ? s3Store({ bucket, forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' }) : undefined;
  if (!store) return undefined;
  let segmentSeconds: number;
  try {
    segmentSeconds = parseDuration(one('hls-segment')!) / 1000;
  } catch (error) {
    throw new UsageError(`-hls-segment: ${(error as Error).message}`);
  }
  let ladder;
  try {
    ladder = parseLadder(one('hls-ladder') ?? '');
  } catch (error) {
    throw new UsageError(`-hls-ladder: ${(error as Error).message}`);
  }
  const reencode = one('hls-reencode');
  if (reencode !== 'auto' && reencode !== 'off') throw new UsageError(`-hls-reencode: "${reencode}" is not one of auto, off`);
  // An operator asking for copy only must not believe a ladder copies.
  if (reencode === 'off' && ladder.length > 0) throw new UsageError('-hls-reencode off: a ladder (-hls-ladder) always transcodes');
  let dvrWindowSeconds: number;
  try {
    dvrWindowSeconds = parseDuration(one('hls-dvr-window')!) / 1000;
  } catch (error) {
    throw new UsageError(`-hls-dvr-window: ${(error as Error).message}`);
  }
  return { store, ffmpegPath: env.FFMPEG_PATH || 'ffmpeg', segmentSeconds, dvrWindowSeconds, ladder, reencode };
}
