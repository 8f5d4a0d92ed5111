import { connect, createServer, type Server, type Socket } from 'node:net';

export interface ResetProxy {
  /** Put between the API and the table: `startApi(env, { dynamoVia: proxy.via })`. */
  via(endpoint: string): Promise<string>;
  /** From now on every connection is reset (TCP RST) as soon as a request arrives on it; open ones at once. */
  resetConnections(): void;
  /** Connections pass through again. */
  passThrough(): void;
  /** Connections reset since `resetConnections`. */
  readonly resets: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a DynamoDB endpoint that, once told, resets every connection: what an
 * overloaded endpoint or a broken network does to the SDK (`ECONNRESET`), below HTTP.
 */
export function dynamoResetProxy(): ResetProxy {
  let resetting = false;
  let resets = 0;
  const open = new Set<Socket>();
  const servers: Server[] = [];
  const reset = (socket: Socket) => {
    resets++;
    socket.resetAndDestroy();
  };
  return {
    get resets() {
      return resets;
    },
    resetConnections() {
      resetting = true;
      for (const socket of open) reset(socket);
    },
    passThrough() {
      resetting = false;
    },
    async via(endpoint) {
      const target = new URL(endpoint);
      const server = createServer((client) => {
        open.add(client);
        const upstream = connect(Number(target.port), target.hostname);
        const forget = () => {
          open.delete(client);
          upstream.destroy();
          client.destroy();
        };
        client.on('close', forget).on('error', forget);
        upstream.on('close', forget).on('error', forget);
        client.on('data', (chunk) => (resetting ? reset(client) : upstream.write(chunk)));
        upstream.pipe(client);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      return `http://127.0.0.1:${port}`;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
