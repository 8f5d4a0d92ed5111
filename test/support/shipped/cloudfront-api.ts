import { randomBytes } from 'node:crypto';
import type { ServiceAnswer } from './secrets-manager';

/** The CloudFront control API calls the functions make: invalidations, recorded per distribution. */
export class CloudFrontApiStandIn {
  readonly invalidations: { distributionId: string; paths: string[] }[] = [];

  handle(method: string, url: URL, body: string): ServiceAnswer {
    const match = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation$/.exec(url.pathname);
    if (method !== 'POST' || !match) {
      return xmlError(400, 'InvalidArgument', `the CloudFront stand-in of verify:shipped has no ${method} ${url.pathname}: add it to test/support/shipped/cloudfront-api.ts`);
    }
    const paths = [...body.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => m[1]!);
    const batch = /<InvalidationBatch[^>]*>[\s\S]*<\/InvalidationBatch>/.exec(body)?.[0];
    if (paths.length === 0 || !batch) return xmlError(400, 'MalformedInput', 'InvalidationBatch with Paths is required');
    this.invalidations.push({ distributionId: decodeURIComponent(match[1]!), paths });
    const id = `I${randomBytes(7).toString('hex').toUpperCase()}`;
    return {
      status: 201,
      headers: { 'content-type': 'text/xml', location: `https://cloudfront.amazonaws.com${url.pathname}/${id}` },
      body: `<?xml version="1.0" encoding="UTF-8"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${id}</Id><Status>InProgress</Status><CreateTime>${new Date().toISOString()}</CreateTime>${batch}</Invalidation>`,
    };
  }
}

export const xmlError = (status: number, code: string, message: string): ServiceAnswer => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></ErrorResponse>`,
});

export const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
