/**
 * Two-factor enrolment on the account page as a model, without a browser: its steps, the proof it sends,
 * and its refusals against a fake API.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../web/src/shared/http';
import type { EnrolmentProof } from '../../web/src/admin/api';
import { accountModel, proofOf, type AccountApi, type AccountChange } from '../../web/src/admin/models/account-model';

const offer = { secret: 'SECRET', otpauthUrl: 'otpauth://x', qrCode: 'data:image/png;base64,' };

function setup(twoFactorEnabled: boolean, api: Partial<AccountApi> = {}) {
  const proofs: EnrolmentProof[] = [];
  const model = accountModel({
    twoFactorEnabled,
    api: {
      startEnrolment: async (proof) => (proofs.push(proof), offer),
      confirmEnrolment: async () => ({ recoveryCodes: ['r1', 'r2'] }),
      ...api,
    },
  });
  const changes: AccountChange[] = [];
  model.subscribe((change) => changes.push(change));
  return { model, proofs, changes };
}

describe('account model', () => {
  it('goes from the overview to the proof, the scan, and the recovery codes', async () => {
    const { model, proofs, changes } = setup(false);
    expect(model.step()).toEqual({ step: 'overview' });
    model.prove();
    expect(model.step()).toEqual({ step: 'prove' });
    await model.startEnrolment('secret password', 'ignored');
    expect([model.step(), proofs]).toEqual([{ step: 'scan', offer }, [{ password: 'secret password' }]]);
    await model.confirm(' 123456 ');
    expect([model.step(), changes]).toEqual([{ step: 'recovery', codes: ['r1', 'r2'] }, ['step', 'step', 'step']]);
  });

  it('sends six digits as a code and anything else as a recovery code once two-factor is on', () => {
    expect(proofOf('pw', ' 123 456 ', true)).toEqual({ password: 'pw', code: '123 456' });
    expect(proofOf('pw', 'abcd-efgh', true)).toEqual({ password: 'pw', recoveryCode: 'abcd-efgh' });
    expect(proofOf('pw', '123456', false)).toEqual({ password: 'pw' });
  });

  it('keeps the proof step on a refusal, and says nothing of a 401 (the session is over)', async () => {
    let status = 400;
    const { model, changes } = setup(true, { startEnrolment: async () => Promise.reject(new ApiError(status, 'No')) });
    model.prove();
    await model.startEnrolment('wrong', '000000');
    expect([model.step(), model.proofError()?.status, changes]).toEqual([{ step: 'prove' }, 400, ['step', 'proof-refused']]);
    status = 401;
    await model.startEnrolment('wrong', '000000');
    expect(changes).toEqual(['step', 'proof-refused']);
  });

  it('keeps the scan step when the first code does not match, and throws the API error', async () => {
    const { model, changes } = setup(false, { confirmEnrolment: async () => Promise.reject(new ApiError(400, 'Wrong code')) });
    await model.startEnrolment('pw', '');
    await expect(model.confirm('111111')).rejects.toThrow('Wrong code');
    expect([model.step().step, changes]).toEqual(['scan', ['step', 'confirm-refused']]);
  });
});
