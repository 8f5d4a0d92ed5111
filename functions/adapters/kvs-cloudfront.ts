// The KeyValueStore API accepts only SigV4a signatures. This registers the SDK's
// pure-JS signer; the alternative (@aws-sdk/signature-v4-crt) pulls in the native
// aws-crt binary, which esbuild cannot bundle into a Lambda.
import '@aws-sdk/signature-v4a';
import {
  CloudFrontKeyValueStoreClient,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  UpdateKeysCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { KvsConflict, type KeyValueStoreApi } from './kvs-writer';

/** The CloudFront KeyValueStore `kvsArn` through the SDK: what the edge-sync Lambda writes in AWS. */
export function cloudFrontKeyValueStore(client: CloudFrontKeyValueStoreClient, kvsArn: string): KeyValueStoreApi {
  const KvsARN = kvsArn;
  return {
    async etag() {
      const { ETag } = await client.send(new DescribeKeyValueStoreCommand({ KvsARN }));
      if (!ETag) throw new Error('DescribeKeyValueStore returned no ETag');
      return ETag;
    },
    async listKeys() {
      const entries = new Map<string, string>();
      let NextToken: string | undefined;
      do {
        const page = await client.send(new ListKeysCommand({ KvsARN, NextToken, MaxResults: 50 }));
        for (const item of page.Items ?? []) if (item.Key !== undefined) entries.set(item.Key, item.Value ?? '');
        NextToken = page.NextToken;
      } while (NextToken);
      return entries;
    },
    async update(ifMatch, puts, deletes) {
      try {
        const output = await client.send(
          new UpdateKeysCommand({
            KvsARN,
            IfMatch: ifMatch,
            Puts: puts.map(({ key, value }) => ({ Key: key, Value: value })),
            Deletes: deletes.map((key) => ({ Key: key })),
          }),
        );
        if (!output.ETag) throw new Error('UpdateKeys returned no ETag');
        return output.ETag;
      } catch (error) {
        // By name: a mocked client, or another copy of the SDK, throws an error of another class.
        if (error instanceof Error && error.name === 'ConflictException') throw new KvsConflict(error.message, { cause: error });
        throw error;
      }
    },
  };
}
