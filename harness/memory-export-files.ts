import { createHash } from 'node:crypto';
import type { ExportFiles } from '../functions/domain/jobs';

const tagOf = (body: Uint8Array) => `"${createHash('md5').update(body).digest('hex')}"`;

/** S3's least part size, for every part of a multipart upload but the last. */
const MIN_PART_BYTES = 5 * 1024 * 1024;

/** The export files port in memory, with S3's rules for multipart uploads (parts replaced by number, the 5 MiB floor). */
export class MemoryExportFiles implements ExportFiles {
  readonly uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  readonly files = new Map<string, { body: Buffer; fileName: string }>();
  private names = new Map<string, string>();
  private nextId = 0;

  async begin({ key, fileName }: { key: string; fileName: string }): Promise<string> {
    const uploadId = `upload-${++this.nextId}`;
    this.uploads.set(uploadId, { key, parts: new Map() });
    this.names.set(uploadId, fileName);
    return uploadId;
  }

  async writePart({ key, uploadId, part, body }: { key: string; uploadId: string; part: number; body: Uint8Array }): Promise<string> {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.key !== key) throw new Error(`NoSuchUpload ${uploadId}`);
    upload.parts.set(part, Buffer.from(body));
    return tagOf(body);
  }

  async complete({ key, uploadId, parts }: { key: string; uploadId: string; parts: { part: number; tag: string }[] }): Promise<number> {
    const upload = this.uploads.get(uploadId);
    if (!upload) {
      const done = this.files.get(key);
      if (done) return done.body.length;
      throw new Error(`NoSuchUpload ${uploadId}`);
    }
    // As S3: the parts named, in order, each as written last (its tag), all but the last of 5 MiB at least.
    parts.forEach(({ part, tag }, i) => {
      const body = upload.parts.get(part);
      if (part !== i + 1 || !body || tagOf(body) !== tag) throw new Error(`InvalidPart ${part}`);
      if (i < parts.length - 1 && body.length < MIN_PART_BYTES) throw new Error(`EntityTooSmall: part ${part}`);
    });
    const body = Buffer.concat(parts.map(({ part }) => upload.parts.get(part)!));
    this.files.set(key, { body, fileName: this.names.get(uploadId)! });
    this.uploads.delete(uploadId);
    return body.length;
  }

  async downloadUrl({ key, fileName, seconds }: { key: string; fileName: string; seconds: number }): Promise<string> {
    return `memory://exports/${key}?name=${encodeURIComponent(fileName)}&expires=${seconds}`;
  }
}
