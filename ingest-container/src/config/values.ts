import type { ListenAddress } from '../server';

/** `500ms`, `5s`, `1.5m`, `1h`, or `0`; what Go's flag users type. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)(ms|s|m|h)?\s*$/.exec(text);
  if (!match || (match[2] === undefined && Number(match[1]) !== 0)) {
    throw new Error(`"${text}" is not a duration (e.g. 500ms, 5s, 1m)`);
  }
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  const unit = units[match[2] ?? 'ms']!;
  return Math.round(Number(match[1]) * unit);
}

/** `:1935`, `1935`, `127.0.0.1:1935`, `[::1]:1935`. */
export function parseListen(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:]*))?:?(\d+)$/.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || !(port >= 0 && port <= 65535)) throw new Error(`"${text}" is not a listen address (e.g. :1935, 127.0.0.1:1935)`);
  const host = match[1] ?? (match[2] || undefined);
  return host === undefined ? { port } : { host, port };
}

/** `<left>=<right>` split at the first `=` (tokens may contain `=`). */
export function splitPair(text: string, what: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) throw new Error(`"${what}" expects <key>=<value>, got "${text}"`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** Env vars holding several values: separated by commas or whitespace. */
export const splitList = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter((item) => item !== '');

/** A duration that must not be 0 (a timeout of 0 would close every connection at once). */
export function positiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new Error(`"${text}" must be more than 0`);
  return ms;
}

export function parseBoolean(text: string): boolean {
  if (/^(true|1|yes|on)$/i.test(text.trim())) return true;
  if (/^(false|0|no|off)$/i.test(text.trim())) return false;
  throw new Error(`"${text}" is not true or false`);
}
