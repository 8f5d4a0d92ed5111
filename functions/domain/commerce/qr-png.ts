import { crc32, deflateSync } from 'node:zlib';
import { encode } from 'uqr';

/**
 * A QR code of `text` as a PNG, for email: mail clients show PNG inline everywhere, SVG hardly
 * anywhere. The matrix is uqr's (the console's QR codes use it too); the PNG around it is an 8-bit
 * grayscale image, `scale` pixels per module, written with Node's own zlib.
 */
export function qrPng(text: string, scale = 6): Buffer {
  // Medium error correction, a border of 4 modules (the standard's quiet zone: mail clients may set the image on grey).
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  const width = size * scale;
  const rows: Buffer[] = [];
  for (const row of data) {
    const line = Buffer.alloc(1 + width, 0xff);
    line[0] = 0; // filter: none
    row.forEach((dark, x) => dark && line.fill(0x00, 1 + x * scale, 1 + (x + 1) * scale));
    for (let i = 0; i < scale; i++) rows.push(line);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8 bits per sample, grayscale, deflate, no filter method, no interlace
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
