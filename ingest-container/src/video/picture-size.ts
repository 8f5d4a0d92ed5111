import { parseH264Sps } from 'node-media-server/src/protocol/sps_info.js';

export interface PictureSize {
  width: number;
  height: number;
}

/**
 * The picture size an AVC sequence header tag (legacy FLV: codec 7, packet type 0) declares, from the
 * first SPS of its decoder configuration record; undefined for any other tag or one that does not parse.
 * Layout: 11-byte tag header, codec byte, packet type, 3-byte composition time, then the record
 * (version, profile, compatibility, level, length size, SPS count, 2-byte SPS length, SPS).
 */
export function avcPictureSize(tag: Buffer): PictureSize | undefined {
  if (tag.length < 25 || tag[0] !== 9 || (tag[11]! & 0x8f) !== 7 || tag[12] !== 0) return undefined;
  if ((tag[21]! & 0x1f) === 0) return undefined;
  const length = tag.readUInt16BE(22);
  if (24 + length > tag.length) return undefined;
  return parseH264Sps(tag.subarray(24, 24 + length)) ?? undefined;
}
