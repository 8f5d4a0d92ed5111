import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, type Logger } from '../log';
import { isPlaylist, referencedFiles } from './playlist';
import {
  PLAYLIST_CACHE_CONTROL,
  PLAYLIST_CONTENT_TYPE,
  SEGMENT_CACHE_CONTROL,
  SEGMENT_CONTENT_TYPE,
  type HlsStore,
} from './store';

export interface UploaderOptions {
  /** Where ffmpeg writes (its files appear by rename, see `temp_file`). */
  workDir: string;
  /** Key prefix in the store, ending with `/`, e.g. `streams/<eventId>/`. */
  keyPrefix: string;
  store: HlsStore;
  log: Logger;
}

/**
 * Copies ffmpeg's HLS output to the store so that a viewer never sees a
 * playlist naming something that is not there yet: every file a playlist
 * names (segments, and for a master playlist its variant playlists) is
 * uploaded before the playlist itself. Passes run one at a time; a change
 * during a pass queues one more pass. A segment's local copy is deleted once
 * stored, which keeps the container's disk small for long events.
 */
export function startUploader({ workDir, keyPrefix, store, log }: UploaderOptions) {
  const storedSegments = new Set<string>();
  const storedPlaylists = new Map<string, string>();
  let running: Promise<void> | undefined;
  let again = false;

  async function storeSegment(name: string): Promise<void> {
    const path = join(workDir, name);
    const body = await readFile(path);
    await store.put(keyPrefix + name, { body, contentType: SEGMENT_CONTENT_TYPE, cacheControl: SEGMENT_CACHE_CONTROL });
    storedSegments.add(name);
    await unlink(path).catch(() => undefined);
  }

  async function pass(): Promise<void> {
    const playlists = new Map<string, string>();
    for (const name of (await readdir(workDir)).filter(isPlaylist)) {
      const text = await readFile(join(workDir, name), 'utf8').catch(() => undefined);
      if (text !== undefined && storedPlaylists.get(name) !== text) playlists.set(name, text);
    }
    let progress = true;
    while (progress && playlists.size > 0) {
      progress = false;
      for (const [name, text] of playlists) {
        const named = referencedFiles(text);
        // A master playlist waits for the variant playlists it names.
        if (named.some((file) => isPlaylist(file) && !storedPlaylists.has(file))) continue;
        for (const segment of named.filter((file) => !isPlaylist(file) && !storedSegments.has(file))) {
          await storeSegment(segment);
        }
        await store.put(keyPrefix + name, {
          body: Buffer.from(text),
          contentType: PLAYLIST_CONTENT_TYPE,
          cacheControl: PLAYLIST_CACHE_CONTROL,
        });
        storedPlaylists.set(name, text);
        playlists.delete(name);
        progress = true;
      }
    }
  }

  function sync(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        // A failed upload leaves the playlist unsent; the next change (or the final pass) tries again.
        await pass().catch((error) => log.error('hls upload failed', { key_prefix: keyPrefix, error: describeError(error) }));
      } while (again);
    })().finally(() => (running = undefined));
    return running;
  }

  const watcher: FSWatcher = watch(workDir, (_event, filename) => {
    if (filename && isPlaylist(filename)) void sync();
  });

  return {
    /** Stops watching and makes a last pass (the final playlist ffmpeg wrote on exit). */
    async finish(): Promise<void> {
      watcher.close();
      await running;
      await sync();
    },
  };
}
