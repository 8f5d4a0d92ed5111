import BaseSession from 'node-media-server/src/session/base_session.js';

/**
 * An internal subscriber of a broadcast that hands every FLV buffer it gets
 * (the file header, then one tag each) to `onTag`, like node-media-server's
 * own NodeRecordSession writes a file. Its empty `ip` marks it internal:
 * node-media-server emits no play events for it.
 */
export class FlvTap extends BaseSession {
  constructor(streamPath: string, onTag: (buffer: Buffer) => void) {
    super();
    this.protocol = 'flv';
    this.streamPath = streamPath;
    this.sendBuffer = onTag;
  }
}
