import { createServer } from 'node:net';

/**
 * A port free now on `host` (every interface when undefined), chosen by the kernel. Another
 * process could take it before it is bound again: a start then fails with EADDRINUSE, it never
 * talks to the wrong server.
 */
export function freePort(host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
