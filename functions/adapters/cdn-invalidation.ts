import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { randomUUID } from 'node:crypto';
import type { MediaCache } from '../domain/streams';

/** Same alphabet as the edge validator accepts for event ids: no wildcard or path trick widens the invalidation. */
const EVENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** In AWS, clearing an event's media cache is a CloudFront invalidation of `/streams/<eventId>/*`. */
export function cloudFrontMediaCache(distributionId: string, client = new CloudFrontClient({})): MediaCache {
  return {
    async clear(eventId) {
      if (!EVENT_ID.test(eventId)) throw new Error(`invalid event id for an invalidation: ${eventId}`);
      await client.send(
        new CreateInvalidationCommand({
          DistributionId: distributionId,
          InvalidationBatch: {
            // Unique per call: CloudFront treats a repeated reference as the same request.
            CallerReference: randomUUID(),
            Paths: { Quantity: 1, Items: [`/streams/${eventId}/*`] },
          },
        }),
      );
    },
  };
}
