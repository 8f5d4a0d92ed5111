/**
 * Types for the parts of node-media-server 4.4.3 (plain JS, no typings) that
 * the ingest reaches into. Pinned version: these are internals.
 */
declare module 'node-media-server/src/session/base_session.js' {
  class BaseSession {
    id: string;
    ip: string;
    isPublisher: boolean;
    protocol: string;
    streamApp: string;
    streamName: string;
    streamPath: string;
    streamQuery: Record<string, unknown>;
    createTime: number;
    endTime: number;
    inBytes: number;
    outBytes: number;
    /** kbit/s the publisher declared in its onMetaData (0 until then, or when it declares none). */
    videoDatarate: number;
    /** From the publisher's onMetaData (0 until then, or when it declares none). */
    videoWidth: number;
    videoHeight: number;
    videoFramerate: number;
    sendBuffer: (buffer: Buffer) => void;
    close: () => void;
  }
  export = BaseSession;
}

declare module 'node-media-server/src/server/broadcast_server.js' {
  import type BaseSession from 'node-media-server/src/session/base_session.js';
  class BroadcastServer {
    constructor(streamPath: string);
    streamPath: string;
    publisher: BaseSession | null;
    subscribers: Map<string, BaseSession>;
    publishGraceMs: number;
    /** What a new FLV subscriber gets first: the file header, the latest metadata and codec configuration tags. */
    flvHeader: Buffer;
    flvMetaData: Buffer | null;
    flvAudioHeader: Buffer | null;
    flvVideoHeader: Buffer | null;
    postPlay: (session: BaseSession) => string | null;
    donePlay: (session: BaseSession) => void;
    postPublish: (session: BaseSession) => string | null;
    donePublish: (session: BaseSession) => void;
    /** Ends the publish now, skipping what is left of the grace window; emits `donePublish`. */
    _finishPublish: () => void;
    getPublishStatus: () => 'publishing' | 'reconnecting' | 'idle';
  }
  export = BroadcastServer;
}

declare module 'node-media-server/src/protocol/rtmp.js' {
  interface InvokeMessage {
    cmd: string;
    transId: number;
    streamName: string;
  }
  class Rtmp {
    streamApp: string | undefined;
    streamHost: string | undefined;
    streamName: string;
    streamQuery: Record<string, unknown>;
    streamId: number;
    parserPacket: { header: { stream_id: number; type: number; length: number }; payload: Buffer };
    parserData(buffer: Buffer): string | null;
    /** Dispatches the command message in `parserPacket`. */
    invokeHandler(): void;
    onPublish(invokeMessage: InvokeMessage): void;
    onPlay(invokeMessage: InvokeMessage): void;
    respondPublish(): void;
    respondPlay(): void;
    sendStatusMessage(sid: number, level: string, code: string, description: string): void;
  }
  export = Rtmp;
}

declare module 'node-media-server/src/session/rtmp_session.js' {
  import type BaseSession from 'node-media-server/src/session/base_session.js';
  import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
  import type Rtmp from 'node-media-server/src/protocol/rtmp.js';
  class RtmpSession extends BaseSession {
    constructor(socket: import('node:net').Socket);
    socket: import('node:net').Socket;
    rtmp: Rtmp;
    broadcast: BroadcastServer;
    run: () => void;
    onConnect: (req: { app: string; name: string; host: string | undefined; query: Record<string, unknown> }) => void;
    onPlay: () => void;
    onPush: () => void;
    onData: (data: Buffer) => void;
    /** Each audio, video or data message parsed; `run` hands it to the protocol layer as its packet callback. */
    onPacket: (packet: unknown) => void;
    onClose: () => void;
  }
  export = RtmpSession;
}

declare module 'node-media-server/src/core/context.js' {
  import type { EventEmitter } from 'node:events';
  import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
  const Context: {
    config: Record<string, unknown>;
    broadcasts: Map<string, BroadcastServer>;
    eventEmitter: EventEmitter;
  };
  export = Context;
}

declare module 'node-media-server/src/protocol/amf.js' {
  export function decodeAmf0Cmd(buffer: Buffer): { cmd?: unknown };
}

declare module 'node-media-server/src/core/logger.js' {
  const logger: { level: 'trace' | 'debug' | 'info' | 'warn' | 'error' };
  export = logger;
}

declare module 'node-media-server/src/protocol/rtmp_client.js' {
  /** node-media-server's RTMP client (used by tests and benches to read exact status codes). */
  class RtmpClient {
    onStatusCallback: (code: string, info: { level?: string; code?: string; description?: string }) => void;
    onCloseCallback: (hadError: boolean) => void;
    connect(url: string): Promise<void>;
    sendConnect(): Promise<unknown>;
    sendCreateStream(): Promise<number>;
    sendPublish(streamName: string): Promise<unknown>;
    sendPlay(streamName: string): Promise<unknown>;
    disconnect(): void;
  }
  export = RtmpClient;
}

declare module 'node-media-server/src/protocol/sps_info.js' {
  /** Pixel size from an H.264 SPS NAL unit (with its header byte, no start code); null when it does not parse. */
  export function parseH264Sps(sps: Buffer): { width: number; height: number } | null;
}
