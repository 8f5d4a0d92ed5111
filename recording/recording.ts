import type { Logger } from './log';
import { describeError } from './log';
import {
  liveTargetDuration,
  renameVariants,
  renderLivePlaylist,
  renderSingleVariantPlaylist,
  renderVodPlaylist,
  type Segment,
  type SegmentRun,
} from './media-playlist';
import { referencedFiles } from './playlist';
import type { PartRecord } from './part-record';
import { PLAYLIST_CACHE_CONTROL, PLAYLIST_CONTENT_TYPE, type HlsStore } from './store';

/** A segment now stored, with its size (for the bit rate the multivariant playlist announces). */
export interface StoredSegment extends Segment {
  bytes: number;
}

/** What the live playlists of a part are made with. */
export interface LiveSettings {
  segmentSeconds: number;
  dvrWindowSeconds: number;
}

export const recordingPrefix = (streamName: string) => `recordings/${streamName}/`;
export const streamPrefix = (streamName: string) => `streams/${streamName}/`;
const INDEX_CACHE_CONTROL = 'no-store';
/** Seconds of the live playlist behind the live edge, for parts that do not say. */
export const DEFAULT_DVR_WINDOW_SECONDS = 120;
/** The single variant's BANDWIDTH until segments of the publish are stored and measured (OBS's highest recommended bit rate). */
const UNMEASURED_BANDWIDTH = 6_000_000;
/** The measured peak is announced rounded up to this step, so the multivariant playlist is rewritten only a few times. */
const BANDWIDTH_STEP = 500_000;

/**
 * The live playlist of a rendition at a target duration: `index.m3u8` →
 * `index-live1.m3u8`, `index_0.m3u8` → `index_0-live1.m3u8`. One name per
 * target duration, so a playlist's target never changes; the multivariant
 * `index.m3u8` names the current one.
 */
export const livePlaylistName = (rendition: string, target: number) => rendition.replace(/\.m3u8$/, `-live${target}.m3u8`);

/**
 * The whole show: every part of an event so far plus the one being written.
 * Read from the store when a publish starts, so it survives a restart of the
 * ingest and a publish on another process; the current part's index is
 * rewritten after its segments are stored, and only then do playlists name them.
 */
export class Recording {
  private previous: PartRecord[];
  private current: PartRecord | undefined;
  private currentKey: string | undefined;
  private previousRuns = new Map<string, SegmentRun[]>();
  private currentRuns = new Map<string, Segment[]>();
  /** Per rendition, the target duration of the live playlist the multivariant playlist names (as last written, or as the parts before imply). */
  private readonly liveTargets = new Map<string, number>();
  private peakBitsPerSecond = 0;
  private masterWritten: string | undefined;

  private constructor(
    private readonly store: HlsStore,
    readonly streamName: string,
    previous: PartRecord[],
  ) {
    this.previous = previous;
    for (const rendition of this.renditions()) {
      const target = this.liveTarget(rendition);
      if (target !== undefined) this.liveTargets.set(rendition, target);
    }
  }

  /** Reads the parts stored so far; with `part`, opens a new part (a publish starting; not stored before it has segments). */
  static async open(store: HlsStore, streamName: string, log: Logger, part?: LiveSettings & { id: string }): Promise<Recording> {
    const previous: PartRecord[] = [];
    for (const key of await store.list(recordingPrefix(streamName))) {
      if (!key.endsWith('.json')) continue;
      try {
        const record = JSON.parse((await store.get(key))?.toString() ?? 'null') as PartRecord | null;
        if (record?.version === 1) previous.push(record);
      } catch (error) {
        log.error('recording index unreadable, part left out', { stream_name: streamName, key, error: describeError(error) });
      }
    }
    const recording = new Recording(store, streamName, previous);
    if (part) recording.startPart(part.id, part);
    return recording;
  }

  /** A new part from here on (the ingest began re-encoding a publish): a discontinuity in every playlist. */
  startPart(id: string, { segmentSeconds, dvrWindowSeconds }: LiveSettings): void {
    if (this.current) {
      this.previous = [...this.previous, this.current];
      this.previousRuns.clear();
    }
    // Parts are ordered by their key: a part started within the same millisecond as the one before still sorts after it.
    const previousStart = Date.parse(this.previous.at(-1)?.startedAt ?? '') || 0;
    const startedAt = new Date(Math.max(Date.now(), previousStart + 1));
    this.current = { version: 1, publishId: id, startedAt: startedAt.toISOString(), segmentSeconds, dvrWindowSeconds, renditions: {} };
    this.currentKey = `${recordingPrefix(this.streamName)}${String(startedAt.getTime()).padStart(15, '0')}-${id}.json`;
    this.currentRuns = new Map();
  }

  /** Segments now stored; they join the index at the next `save`. */
  add(rendition: string, segments: readonly StoredSegment[]): void {
    const list = (this.current!.renditions[rendition] ??= []);
    const run = this.currentRuns.get(rendition) ?? [];
    this.currentRuns.set(rendition, run);
    for (const { uri, duration, bytes } of segments) {
      list.push([uri, duration]);
      run.push({ uri, duration });
      if (duration > 0) this.peakBitsPerSecond = Math.max(this.peakBitsPerSecond, (bytes * 8) / duration);
    }
  }

  /** The current part is watermarked with this pattern (its index says so from the next `save`). */
  markPart(watermark: { signs: string }): void {
    this.current!.watermark = watermark;
  }

  setMaster(text: string): void {
    this.current!.master = text;
  }

  async save(): Promise<void> {
    await this.store.put(this.currentKey!, {
      body: Buffer.from(JSON.stringify(this.current)),
      contentType: 'application/json',
      cacheControl: INDEX_CACHE_CONTROL,
    });
  }

  private get parts(): PartRecord[] {
    return this.current ? [...this.previous, this.current] : [...this.previous];
  }

  /** Rendition playlist names in any part, in the order first seen. */
  renditions(): string[] {
    return [...new Set(this.parts.flatMap((part) => Object.keys(part.renditions)))];
  }

  /** The ladder's master playlist of the latest part that had one. */
  master(): string | undefined {
    return this.parts.map((part) => part.master).filter(Boolean).at(-1);
  }

  /** One run per part; earlier parts never change, so theirs are built once. */
  runs(rendition: string): SegmentRun[] {
    let earlier = this.previousRuns.get(rendition);
    if (!earlier) {
      earlier = this.previous.map((part) => (part.renditions[rendition] ?? []).map(([uri, duration]) => ({ uri, duration })));
      this.previousRuns.set(rendition, earlier);
    }
    return this.current ? [...earlier, this.currentRuns.get(rendition) ?? []] : earlier;
  }

  segmentCount(rendition: string): number {
    return this.runs(rendition).reduce((sum, run) => sum + run.length, 0);
  }

  /** The live target duration while the newest part is written; undefined for parts from before live playlists had their own. */
  private liveTarget(rendition: string): number | undefined {
    const newest = this.parts.at(-1);
    if (newest?.segmentSeconds === undefined) return undefined;
    return liveTargetDuration(this.runs(rendition).at(-1) ?? [], newest.segmentSeconds);
  }

  private get windowSeconds(): number {
    return this.parts.at(-1)?.dvrWindowSeconds ?? DEFAULT_DVR_WINDOW_SECONDS;
  }

  /**
   * The live playlists after segments were stored or when a publish starts:
   * each rendition's at its target duration, then the multivariant
   * `index.m3u8` naming them. When a rendition's target changed (a publish at
   * another segment length, or copied segments growing longer), the playlist
   * at the old target ends first, so its players come back through
   * `index.m3u8` (the viewer page does when a playlist ends while the event
   * is live).
   */
  async putLivePlaylists(): Promise<void> {
    const names = new Map<string, string>();
    for (const rendition of this.renditions()) {
      const target = this.liveTarget(rendition);
      if (target === undefined) continue;
      const before = this.liveTargets.get(rendition);
      if (before !== undefined && before !== target) await this.putLive(rendition, before, true);
      this.liveTargets.set(rendition, target);
      await this.putLive(rendition, target, false);
      names.set(rendition, livePlaylistName(rendition, target));
    }
    const master = this.liveMaster(names);
    if (master === undefined || master === this.masterWritten) return;
    await putPlaylistText(this.store, this.streamName, 'index.m3u8', master);
    this.masterWritten = master;
  }

  /** The ladder's master pointed at the live playlists (once each variant has one), or the single variant's. */
  private liveMaster(names: Map<string, string>): string | undefined {
    const ladder = this.master();
    if (ladder) return referencedFiles(ladder).every((uri) => names.has(uri)) ? renameVariants(ladder, (uri) => names.get(uri)!) : undefined;
    const single = names.get('index.m3u8');
    return single && renderSingleVariantPlaylist(single, this.bandwidth());
  }

  private async putLive(rendition: string, target: number, ended: boolean): Promise<void> {
    const text = renderLivePlaylist({ runs: this.runs(rendition), target, windowSeconds: this.windowSeconds, ended });
    if (text !== undefined) await putPlaylistText(this.store, this.streamName, livePlaylistName(rendition, target), text);
  }

  private bandwidth(): number {
    if (this.peakBitsPerSecond === 0) return UNMEASURED_BANDWIDTH;
    return Math.ceil(this.peakBitsPerSecond / BANDWIDTH_STEP) * BANDWIDTH_STEP;
  }

  /**
   * After the show: every rendition as VOD over every part (`index.m3u8`, or
   * the ladder's `index_<v>.m3u8` and then its master, which names them), so
   * late viewers get the whole show; then the live playlists end
   * (`#EXT-X-ENDLIST`) and their players play to the end.
   */
  async putFinalPlaylists(): Promise<void> {
    const renditions = this.renditions().filter((rendition) => this.segmentCount(rendition) > 0);
    for (const rendition of renditions) await putPlaylistText(this.store, this.streamName, rendition, renderVodPlaylist(this.runs(rendition)));
    const master = this.master();
    if (master && renditions.length > 0) await putPlaylistText(this.store, this.streamName, 'index.m3u8', master);
    for (const rendition of renditions) {
      const target = this.liveTarget(rendition);
      if (target !== undefined) await this.putLive(rendition, target, true);
    }
  }
}

export async function putPlaylistText(store: HlsStore, streamName: string, name: string, text: string): Promise<void> {
  await store.put(streamPrefix(streamName) + name, { body: Buffer.from(text), contentType: PLAYLIST_CONTENT_TYPE, cacheControl: PLAYLIST_CACHE_CONTROL });
}
