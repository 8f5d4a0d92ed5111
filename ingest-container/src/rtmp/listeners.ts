import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../log';

export interface ListenAddress {
  /** Omit to listen on every interface. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
}

export interface ListenerOptions {
  /** Plain RTMP; `null` turns it off. Default: every interface, port 1935. */
  listen?: ListenAddress | null;
  /** RTMPS: PEM files of the certificate (chain) and its key. */
  tls?: ListenAddress & { certFile: string; keyFile: string };
}

export interface Listeners {
  /** `rtmp://host:port`, when the plain listener is on. */
  url: string | undefined;
  /** `rtmps://host:port`, when RTMPS is on. */
  tlsUrl: string | undefined;
  /** Stops accepting; resolves once the listeners are closed. */
  close(): Promise<void>;
}

/**
 * Our own listeners rather than node-media-server's: they take port 0 and
 * a port already taken is an error to the caller, not a process exit. A
 * failure opening the second closes the first.
 */
export async function openListeners(options: ListenerOptions, accept: (socket: net.Socket) => void, log: Logger): Promise<Listeners> {
  const servers: net.Server[] = [];
  const close = async () => void (await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));
  let url: string | undefined;
  let tlsUrl: string | undefined;
  try {
    if (options.listen !== null) {
      const server = net.createServer(accept);
      servers.push(server);
      url = `rtmp://${await listen(server, options.listen ?? { port: 1935 })}`;
    }
    if (options.tls) {
      const server = tls.createServer({ cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) }, accept);
      server.on('tlsClientError', (error) => log.debug('tls handshake failed', { error: error.message }));
      servers.push(server);
      tlsUrl = `rtmps://${await listen(server, options.tls)}`;
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { url, tlsUrl, close };
}

/** Listens and answers `host:port` as a client reaches it (a wildcard address as loopback). */
async function listen(server: net.Server, address: ListenAddress): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as net.AddressInfo;
  const host = !address.host || address.host === '0.0.0.0' || address.host === '::' ? '127.0.0.1' : address.host;
  return `${host.includes(':') ? `[${host}]` : host}:${bound.port}`;
}
