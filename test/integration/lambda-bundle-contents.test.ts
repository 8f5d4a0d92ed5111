/**
 * What each Lambda bundles, as the CDK app builds it (infra/lib/lambda-bundling.ts): a function carries
 * the SDK clients its composition root asks for and no other, so a viewer's cold start never evaluates
 * the S3 or SQS client and least privilege holds in the code as in IAM (docs/architecture.md, "Wiring").
 */
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../infra/lib/lambda-bundling';

const ENTRIES = readdirSync('functions/handlers').map((file) => file.replace(/\.ts$/, '')).sort();

/** The npm packages the entry's shipped bundle holds code of. */
async function packagesOf(name: string): Promise<Set<string>> {
  const { metafile } = await build({ ...lambdaBuildOptions(`functions/handlers/${name}.ts`), write: false, outfile: `${name}.mjs`, metafile: true });
  const packages = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
      if (name && bytesInOutput > 0) packages.add(name);
    }
  }
  return packages;
}

describe('the Lambda bundles', () => {
  it('carry the S3 and SQS clients only where the function uses them', { timeout: 120_000 }, async () => {
    expect(ENTRIES).toEqual(['admin', 'audience-recorder', 'checkout-sweep', 'edge-sync', 'internal', 'job-worker', 'mailer', 'public', 'recording-sweep', 'rtmp-callback']);
    const carrying = (client: string, bundles: Map<string, Set<string>>) => ENTRIES.filter((name) => bundles.get(name)!.has(client));
    const bundles = new Map<string, Set<string>>();
    for (const name of ENTRIES) bundles.set(name, await packagesOf(name));
    // Exports and the recording's playlists write to S3; the admin function and the worker queue job steps.
    expect(carrying('@aws-sdk/client-s3', bundles)).toEqual(['admin', 'job-worker', 'recording-sweep']);
    expect(carrying('@aws-sdk/client-sqs', bundles)).toEqual(['admin', 'job-worker']);
    expect(carrying('@aws-sdk/client-dynamodb', bundles)).toEqual(ENTRIES);
  });
});
