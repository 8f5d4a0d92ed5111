import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIRECTORY_INDEX_FILE } from '../../infra/lib/constructs/delivery';

// The CloudFront Function file is plain cloudfront-js-2.0 (no module syntax): evaluate it and take `handler`.
const handler = new Function(`${readFileSync(DIRECTORY_INDEX_FILE, 'utf8')}\nreturn handler;`)() as (event: {
  request: { uri: string };
}) => Promise<{ uri: string }>;
const rewrite = async (uri: string) => (await handler({ request: { uri } })).uri;

describe('directory-index CloudFront Function', () => {
  it('serves index.html for folder URLs', async () => {
    expect(await rewrite('/admin/')).toBe('/admin/index.html');
    expect(await rewrite('/admin')).toBe('/admin/index.html');
    expect(await rewrite('/')).toBe('/index.html');
  });

  it('leaves files alone', async () => {
    expect(await rewrite('/assets/viewer-AB12CD.js')).toBe('/assets/viewer-AB12CD.js');
    expect(await rewrite('/index.html')).toBe('/index.html');
    expect(await rewrite('/admin/index.html')).toBe('/admin/index.html');
  });
});
