/**
 * Where a publish's codec settings change. An encoder sends its codec
 * configuration (the AVC/HEVC decoder configuration with SPS and PPS, AAC's
 * AudioSpecificConfig) once, as a "sequence header" tag, before its first
 * frame; the frames after it decode only with it. A packager that copies the
 * video keeps the configuration it started with, so frames of an encoder
 * restarted with another preset or frame size (OBS reconnecting with a new
 * profile, a backup encoder taking over) need a packaging run of their own:
 * a new part of the recording.
 */
import { flvVideoFrame } from './keyframe-meter';

export type SequenceHeaderKind = 'audio' | 'video';

/**
 * The codec configuration an FLV tag carries, or undefined for anything else:
 * AVC/HEVC sequence headers (legacy and Enhanced RTMP sequence start), AAC
 * sequence headers (legacy and Enhanced RTMP audio sequence start).
 */
export function flvSequenceHeader(tag: Buffer): SequenceHeaderKind | undefined {
  if (tag.length < 13) return undefined;
  const first = tag[11]!;
  if (tag[0] === 9) {
    // Enhanced RTMP: packet type 0 is the sequence start (frame type 5 is a command, no configuration).
    if (first & 0x80) return (first & 0x0f) === 0 && ((first >> 4) & 0x07) !== 5 ? 'video' : undefined;
    const codecId = first & 0x0f;
    return (codecId === 7 || codecId === 12) && tag[12] === 0 ? 'video' : undefined;
  }
  if (tag[0] === 8) {
    const soundFormat = first >> 4;
    if (soundFormat === 10) return tag[12] === 0 ? 'audio' : undefined;
    // Enhanced RTMP audio (sound format 9): packet type 0 is the sequence start.
    if (soundFormat === 9) return (first & 0x0f) === 0 ? 'audio' : undefined;
  }
  return undefined;
}

/**
 * What the packaging does with a tag:
 * - `pass`: give it to the current part;
 * - `drop`: the codec settings changed and the new part has not started yet (it starts at a keyframe; a sequence
 *   header is dropped because the new part begins with the ones in use, see `headers()`);
 * - `new-part`: end the current part and start a new one with this tag, after the headers in use.
 */
export type PartCut = 'pass' | 'drop' | 'new-part';

/** A tag's body: its 11-byte header (with the timestamp) and 4-byte trailer left out. */
const body = (tag: Buffer) => tag.subarray(11, tag.length - 4);

/**
 * Watches every tag of one publish, in order, and says where a new part must
 * start: at the first video keyframe after a sequence header whose bytes
 * differ from the one in use (on a resume or mid-stream; for a publish with no
 * video, at the first audio frame after it). A header repeated with the same
 * bytes (a resume with the same settings; encoders that repeat it) changes
 * nothing. The frames between the new header and that keyframe cannot be
 * decoded by either part and are dropped: none on a reconnect, where the
 * encoder's first frame is a keyframe.
 */
export class SequenceHeaderWatch {
  #audio: Buffer | undefined;
  #video: Buffer | undefined;
  #changed = false;

  tag(tag: Buffer): PartCut {
    const kind = flvSequenceHeader(tag);
    if (kind) {
      const inUse = kind === 'audio' ? this.#audio : this.#video;
      if (kind === 'audio') this.#audio = tag;
      else this.#video = tag;
      if (inUse && !body(inUse).equals(body(tag))) this.#changed = true;
      return this.#changed ? 'drop' : 'pass';
    }
    if (!this.#changed) return 'pass';
    const startsPart = this.#video === undefined ? tag[0] === 8 : flvVideoFrame(tag)?.keyframe === true;
    if (!startsPart) return 'drop';
    this.#changed = false;
    return 'new-part';
  }

  /** The sequence header tags in use (audio, then video): what a new part starts with, after the FLV header and metadata. */
  headers(): Buffer[] {
    return [this.#audio, this.#video].filter((tag): tag is Buffer => tag !== undefined);
  }
}
