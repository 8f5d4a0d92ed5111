import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALIDATOR_FILE } from '../../local/media-edge-runtime';
import { runUnderNjs } from '../support/njs';
import { buildValidatorFixture, type ValidatorFixture } from '../support/validator-cases';

let fixture: ValidatorFixture;
beforeAll(async () => {
  fixture = await buildValidatorFixture();
});

describe('edge validator under Debian njs (closest local stand-in for cloudfront-js-2.0)', () => {
  it('every case of the table gives the same outcome as in Node', async () => {
    const outcomes = await runUnderNjs(
      readFileSync(EDGE_VALIDATOR_FILE, 'utf8'),
      fixture.cases.map((c) => ({ request: c.request, store: fixture.store })),
    );
    fixture.cases.forEach((testCase, i) => expect(outcomes[i], testCase.name).toEqual(testCase.expected));
  });
});
