import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachment } from '../domain/codes';
import type { ExportFiles } from '../domain/jobs';

const isNoSuchUpload = (error: unknown) => (error as { name?: string })?.name === 'NoSuchUpload';

/**
 * Export files on S3: a multipart upload per file, completed with the parts' ETags as the job
 * recorded them, and a presigned GET as the download link, which names the file through
 * `response-content-disposition`.
 */
export function s3ExportFiles(client: S3Client, bucket: string): ExportFiles {
  return {
    async begin({ key }) {
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'text/csv; charset=utf-8' }));
      if (!UploadId) throw new Error('S3 gave no upload id');
      return UploadId;
    },

    async writePart({ key, uploadId, part, body }) {
      const { ETag } = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: part, Body: body, ContentLength: body.byteLength }));
      if (!ETag) throw new Error('S3 gave no part ETag');
      return ETag;
    },

    async complete({ key, uploadId, parts }) {
      try {
        const completed: CompletedPart[] = parts.map(({ part, tag }) => ({ PartNumber: part, ETag: tag }));
        await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: completed } }));
      } catch (error) {
        // Completed by an earlier try: the file is there.
        if (!isNoSuchUpload(error)) throw error;
      }
      const { ContentLength } = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return ContentLength ?? 0;
    },

    downloadUrl({ key, fileName, seconds }) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: attachment(fileName), ResponseContentType: 'text/csv; charset=utf-8' }), {
        expiresIn: seconds,
      });
    },
  };
}
