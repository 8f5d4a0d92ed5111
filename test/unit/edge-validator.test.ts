import { statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALIDATOR_FILE, loadEdgeValidator } from '../../local/media-edge-runtime';
import { buildValidatorFixture, outcomeOf, type ValidatorFixture } from '../support/validator-cases';

let fixture: ValidatorFixture;
beforeAll(async () => {
  fixture = await buildValidatorFixture();
});

describe('edge validator in Node (cloudfront shim)', () => {
  it('every case of the table gives its expected outcome', async () => {
    const handler = loadEdgeValidator(new Map(Object.entries(fixture.store)));
    for (const testCase of fixture.cases) {
      const result = await handler({ version: '1.0', request: structuredClone(testCase.request) });
      expect(outcomeOf(result), testCase.name).toEqual(testCase.expected);
    }
  });

  it('denies everything when the KeyValueStore is unreadable (fail closed)', async () => {
    const broken = new Map(Object.entries(fixture.store));
    broken.has = () => {
      throw new Error('KeyValueStore unavailable');
    };
    const handler = loadEdgeValidator(broken);
    const valid = fixture.cases[0]!;
    expect(outcomeOf(await handler({ version: '1.0', request: structuredClone(valid.request) }))).toEqual({
      status: 403,
      error: 'Access denied',
      cors: true,
    });
  });

  it('the shipped file stays under the 10 KB CloudFront Functions limit', () => {
    expect(statSync(EDGE_VALIDATOR_FILE).size).toBeLessThan(10 * 1024);
  });
});
