import { isIPv6 } from 'node:net';

/**
 * Whom a per-address rate limit counts. IPv4: the address. IPv6: its /64,
 * because one subscriber (and any single host, by privacy addressing) gets a
 * whole /64 and could otherwise rotate through 2^64 addresses, each with a
 * fresh window.
 */
export function rateLimitSubject(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
