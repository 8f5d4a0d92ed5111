import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port of the kernel's ephemeral range. Every outgoing connection and every `listen(0)`
 * takes its port from that range, so a port picked below it cannot be taken by them between the
 * pick and the bind (the race that port 0 resolved early loses on a busy machine).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // Not Linux: the IANA range.
  }
  return 49152;
}

const RANGE_START = 10_000;

function bindable(port: number, host: string | undefined): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen({ port, host }, () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port free now on `host` (every interface when undefined), picked at random between 10,000 and
 * the ephemeral range. Another process that picks ports the same way could still take it before it
 * is bound again: a start then fails with EADDRINUSE, it never talks to the wrong server.
 */
export async function freePort(host?: string): Promise<number> {
  const high = ephemeralLow() - 1;
  if (high > RANGE_START) {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const port = await bindable(RANGE_START + Math.floor(Math.random() * (high - RANGE_START + 1)), host);
      if (port !== null) return port;
    }
  }
  const port = await bindable(0, host);
  if (port === null) throw new Error(`no free port on ${host ?? 'any interface'}`);
  return port;
}
