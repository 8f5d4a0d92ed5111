/** An FLV tag as node-media-server hands it to subscribers: 11-byte header, body, 4-byte size. */
export function flvTag(type: number, dtsMs: number, body: number[]): Buffer {
  const buffer = Buffer.alloc(11 + body.length + 4);
  buffer[0] = type;
  buffer.writeUIntBE(body.length, 1, 3);
  buffer[4] = (dtsMs >> 16) & 0xff;
  buffer[5] = (dtsMs >> 8) & 0xff;
  buffer[6] = dtsMs & 0xff;
  buffer[7] = (dtsMs >> 24) & 0xff;
  Buffer.from(body).copy(buffer, 11);
  buffer.writeUInt32BE(11 + body.length, 11 + body.length);
  return buffer;
}
