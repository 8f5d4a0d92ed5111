import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export interface OriginObject {
  body: Buffer;
  contentType: string | undefined;
}

/** Reads media objects from the bucket the ingest writes to; `null` when the key does not exist. */
export function createS3Origin(client: S3Client, bucket: string) {
  return async function readObject(key: string): Promise<OriginObject | null> {
    try {
      const output = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!output.Body) return null;
      return { body: Buffer.from(await output.Body.transformToByteArray()), contentType: output.ContentType };
    } catch (error) {
      if (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound')) return null;
      throw error;
    }
  };
}
