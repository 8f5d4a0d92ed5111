/**
 * Two-factor sign-in of the signed-in account, without the DOM: the steps (what it is now; prove it is you;
 * scan and confirm; the recovery codes, shown once) and the actions that call the API.
 */
import { asApiError, type ApiError } from '../../shared/http';
import type { adminApi, EnrolmentProof } from '../api';
import { listeners } from './listeners';

export type AccountApi = Pick<typeof adminApi, 'startEnrolment' | 'confirmEnrolment'>;
export type EnrolmentOffer = Awaited<ReturnType<AccountApi['startEnrolment']>>;

export type TwoFactorStep =
  | { step: 'overview' }
  /** Starting or replacing two-factor sign-in asks for the password (and the current factor): a session cookie alone is not enough. */
  | { step: 'prove' }
  | { step: 'scan'; offer: EnrolmentOffer }
  | { step: 'recovery'; codes: string[] };

/** What changed: the step, or the step's answer was a refusal (the form stays, with what was typed). */
export type AccountChange = 'step' | 'proof-refused' | 'confirm-refused';

/** The password, and with two-factor sign-in on, the current factor: six digits are a code, anything else a recovery code. */
export function proofOf(password: string, factor: string, twoFactorEnabled: boolean): EnrolmentProof {
  if (!twoFactorEnabled) return { password };
  const value = factor.trim();
  return /^\d{6}$/.test(value.replace(/\s+/g, '')) ? { password, code: value } : { password, recoveryCode: value };
}

export function accountModel(options: { api: AccountApi; twoFactorEnabled: boolean }) {
  const { api, twoFactorEnabled } = options;
  let step: TwoFactorStep = { step: 'overview' };
  /** Why the proof was refused (a 401 ends the session: nothing to show here). */
  let proofError: ApiError | null = null;
  const changes = listeners<AccountChange>();
  const go = (next: TwoFactorStep) => {
    step = next;
    changes.emit('step');
  };

  return {
    subscribe: changes.subscribe,
    step: () => step,
    proofError: () => proofError,
    prove: () => go({ step: 'prove' }),
    /** Sends the proof: the scan step, or the refusal (never throws). */
    async startEnrolment(password: string, factor: string): Promise<void> {
      let offer: EnrolmentOffer;
      try {
        offer = await api.startEnrolment(proofOf(password, factor, twoFactorEnabled));
      } catch (thrown) {
        proofError = asApiError(thrown);
        if (proofError.status !== 401) changes.emit('proof-refused');
        return;
      }
      proofError = null;
      go({ step: 'scan', offer });
    },
    /** The first code from the app: the recovery codes, or the refusal (then throws the API's error). */
    async confirm(code: string): Promise<void> {
      let recoveryCodes: string[];
      try {
        ({ recoveryCodes } = await api.confirmEnrolment(code.trim()));
      } catch (error) {
        changes.emit('confirm-refused');
        throw error;
      }
      go({ step: 'recovery', codes: recoveryCodes });
    },
  };
}

export type AccountModel = ReturnType<typeof accountModel>;
