/**
 * The recording's files the tracer needs, through the files route (signed URLs, at most 600 names a
 * call): the fingerprints of the marked parts, and A and B of the aligned segments in one rendition.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WatermarkPartView } from '../../functions/domain/watermark';
import { segmentStem } from '../../recording/part-record';
import { download, type StaffApi } from './api-client';

/** A marked part as `GET …/watermark` answers it. */
export type WatermarkPart = WatermarkPartView;

const FILES_PER_CALL = 600;
/** Downloads at once. */
const PARALLEL = 8;

/** A rendition's A or B file: `index_<v>.m3u8` (a ladder) stores `<stem>.<v>.a.ts`, a single `index.m3u8` `<stem>.a.ts`. */
export function versionFile(part: string, index: number, rendition: string, version: 'a' | 'b'): string {
  const ladder = /^index_(\d+)\.m3u8$/.exec(rendition);
  return `${segmentStem(part, index)}${ladder ? `.${ladder[1]}` : ''}.${version}.ts`;
}

/** The rendition closest to the copy's height from above (else the tallest): the copy was made from it or a larger one. */
export function renditionFor(part: WatermarkPart, copyHeight: number): string {
  const known = part.renditions.filter((r) => r.height !== null) as { name: string; height: number }[];
  if (known.length === 0) return part.renditions[0]!.name;
  const above = known.filter((r) => r.height >= copyHeight).sort((a, b) => a.height - b.height);
  return (above[0] ?? [...known].sort((a, b) => b.height - a.height)[0]!).name;
}

async function inParallel<T, R>(items: readonly T[], work: (item: T) => Promise<R>, parallel = PARALLEL): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

/** Each named file's bytes, by name (a missing one is left out). */
export async function fetchFiles(api: StaffApi, eventId: string, names: readonly string[]): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < names.length; i += FILES_PER_CALL) {
    const batch = names.slice(i, i + FILES_PER_CALL);
    const { urls } = await api.post<{ urls: Record<string, string> }>(`/api/admin/events/${encodeURIComponent(eventId)}/watermark/files`, { files: batch });
    const bodies = await inParallel(batch, (name) => download(urls[name]!));
    batch.forEach((name, j) => bodies[j] && files.set(name, bodies[j]));
  }
  return files;
}

/** The named files saved under `dir` (ffmpeg reads them from there), by name (a missing one is left out). */
export async function saveFiles(api: StaffApi, eventId: string, names: readonly string[], dir: string): Promise<Map<string, string>> {
  await mkdir(dir, { recursive: true });
  const saved = new Map<string, string>();
  for (const [name, bytes] of await fetchFiles(api, eventId, names)) {
    const path = join(dir, name.replace(/\//g, '_'));
    await writeFile(path, bytes);
    saved.set(name, path);
  }
  return saved;
}

export { inParallel };
