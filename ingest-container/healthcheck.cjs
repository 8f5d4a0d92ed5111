// Container health: the RTMP (or, when plain RTMP is off, the RTMPS) port accepts a TCP connection.
// Reads the same env vars as the server, so configure the container with env rather than flags.
const net = require('node:net');

const address = process.env.INGEST_LISTEN || process.env.INGEST_TLS_LISTEN || ':1935';
const port = Number(address.slice(address.lastIndexOf(':') + 1));
const socket = net.connect({ host: '127.0.0.1', port });
socket.setTimeout(2000, () => process.exit(1));
socket.on('connect', () => {
  socket.destroy();
  process.exit(0);
});
socket.on('error', () => process.exit(1));
