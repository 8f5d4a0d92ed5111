import type { Logger } from './log';
import { describeError } from './log';
import { renderMediaPlaylist, type Segment, type SegmentRun } from './media-playlist';
import { PLAYLIST_CACHE_CONTROL, PLAYLIST_CONTENT_TYPE, type HlsStore } from './store';

/**
 * One publish of an event, as stored in `recordings/<eventId>/<start ms>-<publishId>.json`
 * (outside `streams/`, so viewers never fetch it): the segments of each
 * rendition playlist (`index.m3u8`, or `index_0.m3u8`… with a ladder) that
 * are stored, in order, and the ladder's master playlist.
 */
export interface PartRecord {
  version: 1;
  publishId: string;
  startedAt: string;
  /** The ladder's master playlist text; absent in copy mode. */
  master?: string;
  /** Rendition playlist name → `[segment file, seconds]` in order. */
  renditions: Record<string, [string, number][]>;
}

export const recordingPrefix = (streamName: string) => `recordings/${streamName}/`;
export const streamPrefix = (streamName: string) => `streams/${streamName}/`;
const INDEX_CACHE_CONTROL = 'no-store';

/**
 * The whole show: every publish of an event so far plus the one being
 * written. Read from the store at publish start, so it survives a restart of
 * the ingest and a publish on another process; the current part's index is
 * rewritten after its segments are stored, and only then do playlists name them.
 */
export class Recording {
  private readonly previousRuns = new Map<string, SegmentRun[]>();
  private readonly currentRuns = new Map<string, Segment[]>();

  private constructor(
    private readonly store: HlsStore,
    readonly streamName: string,
    private readonly previous: readonly PartRecord[],
    private readonly current: PartRecord | undefined,
    private readonly currentKey: string | undefined,
  ) {}

  /** Reads the parts stored so far; with `publishId`, opens a new part for that publish. */
  static async open(store: HlsStore, streamName: string, log: Logger, publishId?: string): Promise<Recording> {
    const previous: PartRecord[] = [];
    for (const key of await store.list(recordingPrefix(streamName))) {
      if (!key.endsWith('.json')) continue;
      try {
        const part = JSON.parse((await store.get(key))?.toString() ?? 'null') as PartRecord | null;
        if (part?.version === 1) previous.push(part);
      } catch (error) {
        log.error('recording index unreadable, part left out', { stream_name: streamName, key, error: describeError(error) });
      }
    }
    if (!publishId) return new Recording(store, streamName, previous, undefined, undefined);
    const startedAt = new Date();
    const current: PartRecord = { version: 1, publishId, startedAt: startedAt.toISOString(), renditions: {} };
    const key = `${recordingPrefix(streamName)}${String(startedAt.getTime()).padStart(15, '0')}-${publishId}.json`;
    return new Recording(store, streamName, previous, current, key);
  }

  /** Segments now stored; they join the index at the next `save`. */
  add(rendition: string, segments: readonly Segment[]): void {
    const list = (this.current!.renditions[rendition] ??= []);
    for (const { uri, duration } of segments) list.push([uri, duration]);
    const run = this.currentRuns.get(rendition) ?? [];
    this.currentRuns.set(rendition, run);
    run.push(...segments);
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

  /** One run per publish; earlier publishes never change, so theirs are built once. */
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

  /** Live: the DVR window's tail. Undefined window: the whole show as VOD. */
  async putPlaylist(rendition: string, liveWindowSeconds?: number): Promise<void> {
    await putPlaylistText(this.store, this.streamName, rendition, renderMediaPlaylist({ runs: this.runs(rendition), liveWindowSeconds }));
  }

  /**
   * A publish starts: an event whose show had ended goes back to a live
   * playlist at once (its tail, no `#EXT-X-ENDLIST`), so that a player opened
   * now waits at the live edge for the new part instead of replaying the show.
   */
  async putLivePlaylists(liveWindowSeconds: number): Promise<void> {
    for (const rendition of this.renditions()) {
      if (this.segmentCount(rendition) > 0) await this.putPlaylist(rendition, liveWindowSeconds);
    }
  }

  /**
   * After the show: every rendition as VOD over every publish, then the
   * master playlist (it names the renditions, so it goes last).
   */
  async putFinalPlaylists(): Promise<void> {
    const renditions = this.renditions().filter((rendition) => this.segmentCount(rendition) > 0);
    for (const rendition of renditions) await this.putPlaylist(rendition);
    const master = this.master();
    if (master && renditions.length > 0) await putPlaylistText(this.store, this.streamName, 'index.m3u8', master);
  }
}

export async function putPlaylistText(store: HlsStore, streamName: string, name: string, text: string): Promise<void> {
  await store.put(streamPrefix(streamName) + name, { body: Buffer.from(text), contentType: PLAYLIST_CONTENT_TYPE, cacheControl: PLAYLIST_CACHE_CONTROL });
}
