import { startFauxqs } from 'fauxqs';

export interface EmbeddedS3 {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * fauxqs: an S3-compatible server in this process (it also speaks SQS/SNS,
 * unused here). It keeps objects in memory only, so local HLS output does not
 * survive a restart; DynamoDB data does (see DATA_DIR).
 */
export async function startEmbeddedS3(opts: { buckets: string[] }): Promise<EmbeddedS3> {
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  for (const bucket of opts.buckets) server.createBucket(bucket);
  return { endpoint: `http://127.0.0.1:${server.port}`, close: () => server.stop() };
}
