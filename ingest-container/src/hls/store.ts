import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface StoredObject {
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

/** Where finished HLS files go: S3 in AWS and `npm start`, a folder standalone. */
export interface HlsStore {
  put(key: string, object: StoredObject): Promise<void>;
  /** For logs: `s3://bucket` or the folder path. */
  readonly location: string;
}

export const PLAYLIST_CONTENT_TYPE = 'application/vnd.apple.mpegurl';
export const SEGMENT_CONTENT_TYPE = 'video/mp2t';
/** Playlists change every segment; one second keeps CloudFront from hammering S3 without making viewers lag. */
export const PLAYLIST_CACHE_CONTROL = 'public, max-age=1';
/** Segment names carry the publish id, so a name is never reused and may be cached for good. */
export const SEGMENT_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function s3Store(options: { bucket: string; client?: S3Client; forcePathStyle?: boolean }): HlsStore {
  // The SDK reads AWS_ENDPOINT_URL_S3 itself; path style is what the local S3 stand-in needs.
  const client = options.client ?? new S3Client({ forcePathStyle: options.forcePathStyle ?? false });
  return {
    location: `s3://${options.bucket}`,
    async put(key, object) {
      await client.send(
        new PutObjectCommand({
          Bucket: options.bucket,
          Key: key,
          Body: object.body,
          ContentType: object.contentType,
          CacheControl: object.cacheControl,
        }),
      );
    },
  };
}

/** Writes under `root/<key>`; each file appears whole (written aside, then renamed) as it would in S3. */
export function folderStore(root: string): HlsStore {
  const base = resolve(root);
  return {
    location: base,
    async put(key, object) {
      const path = resolve(base, key);
      if (!path.startsWith(base + sep)) throw new Error(`key ${key} escapes ${base}`);
      await mkdir(dirname(path), { recursive: true });
      const aside = join(dirname(path), `.${process.pid}.${Math.random().toString(36).slice(2)}.part`);
      await writeFile(aside, object.body);
      await rename(aside, path);
    },
  };
}
