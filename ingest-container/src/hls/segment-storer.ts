import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, type Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { fingerprintKey, fingerprintOf } from './fingerprint';
import { storedFilesOf } from '../../../recording/playlist';
import { streamPrefix } from '../../../recording/recording';
import { SEGMENT_CACHE_CONTROL, SEGMENT_CONTENT_TYPE, type HlsStore } from '../../../recording/store';

/** How long version B of a watermarked segment may lag behind A (the same ffmpeg writes both, a moment apart). */
const VERSION_B_WAIT_MS = 10_000;

/**
 * Stores one complete segment of the work folder under `streams/<streamName>/` and deletes its local
 * copy; answers false for one that is gone (left out). A watermarked segment (`<…>.w.ts`) is its two
 * versions, `.a.ts` then `.b.ts`, and the fingerprint rendition's gets its fingerprint stored too.
 */
export function createSegmentStorer(deps: {
  workDir: string;
  streamName: string;
  store: HlsStore;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  fingerprints?: { rendition: string; ffmpegPath: string };
  /** How long version B may lag behind A; default 10 s. */
  versionBWaitMs?: number;
}): (uri: string, rendition: string) => Promise<boolean> {
  const { workDir, streamName, store, log, metrics, fingerprints, versionBWaitMs = VERSION_B_WAIT_MS } = deps;
  const prefix = streamPrefix(streamName);

  /** A segment file of the work folder; undefined when it is not there (after waiting `waitMs` for it to appear). */
  async function readSegment(file: string, waitMs: number): Promise<Buffer | undefined> {
    for (const giveUpAt = Date.now() + waitMs; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const body = await readFile(join(workDir, file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (body || Date.now() >= giveUpAt) return body;
    }
  }

  async function storeSegment(uri: string, rendition: string): Promise<boolean> {
    const files = storedFilesOf(uri);
    const bodies: Buffer[] = [];
    for (const [i, file] of files.entries()) {
      // A playlist named version A: version B is finished a moment later, if not yet.
      const body = await readSegment(file, i === 0 ? 0 : versionBWaitMs);
      if (!body) {
        log.error('hls segment missing from the work folder, left out', { stream_name: streamName, segment: file });
        for (const other of files) await unlink(join(workDir, other)).catch(() => undefined);
        return false;
      }
      bodies.push(body);
    }
    for (const [i, file] of files.entries()) {
      await store.put(prefix + file, { body: bodies[i]!, contentType: SEGMENT_CONTENT_TYPE, cacheControl: SEGMENT_CACHE_CONTROL });
    }
    metrics.count('SegmentsUploaded');
    if (fingerprints && files.length === 2 && rendition === fingerprints.rendition) await storeFingerprint(files[0]!);
    for (const file of files) await unlink(join(workDir, file)).catch(() => undefined);
    return true;
  }

  /** The fingerprint of version A, made from its local copy; one that ffmpeg cannot make is logged and left out. */
  async function storeFingerprint(versionA: string): Promise<void> {
    const key = fingerprintKey(streamName, versionA)!;
    let body: Buffer;
    try {
      body = await fingerprintOf(fingerprints!.ffmpegPath, join(workDir, versionA));
    } catch (error) {
      log.error('watermark fingerprint not made, left out', { stream_name: streamName, segment: versionA, error: describeError(error) });
      return;
    }
    await store.put(key, { body, contentType: 'application/octet-stream', cacheControl: SEGMENT_CACHE_CONTROL });
  }

  return storeSegment;
}
