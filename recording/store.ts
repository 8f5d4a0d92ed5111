import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface StoredObject {
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

/** Where finished HLS files go: S3 in AWS and `npm start`, a folder standalone. */
export interface HlsStore {
  put(key: string, object: StoredObject): Promise<void>;
  /** The object's bytes, `undefined` when there is none. */
  get(key: string): Promise<Buffer | undefined>;
  /** Keys under `prefix` (a folder ending in `/`; not recursive), sorted. */
  list(prefix: string): Promise<string[]>;
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
    async get(key) {
      try {
        const output = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: key }));
        return Buffer.from(await output.Body!.transformToByteArray());
      } catch (error) {
        if (error instanceof Error && error.name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
    async list(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: options.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }));
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
  };
}

/** Writes under `root/<key>`; each file appears whole (written aside, then renamed) as it would in S3. */
export function folderStore(root: string): HlsStore {
  const base = resolve(root);
  const inside = (key: string) => {
    const path = resolve(base, key);
    if (!path.startsWith(base + sep)) throw new Error(`key ${key} escapes ${base}`);
    return path;
  };
  return {
    location: base,
    async put(key, object) {
      const path = inside(key);
      await mkdir(dirname(path), { recursive: true });
      const aside = join(dirname(path), `.${process.pid}.${Math.random().toString(36).slice(2)}.part`);
      await writeFile(aside, object.body);
      await rename(aside, path);
    },
    async get(key) {
      return readFile(inside(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
    },
    async list(prefix) {
      const names = await readdir(inside(prefix), { withFileTypes: true }).catch(() => []);
      return names.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => prefix + entry.name).sort();
    },
  };
}
