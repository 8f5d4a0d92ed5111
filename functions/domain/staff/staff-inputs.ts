/** What a staff member sends to sign in. */
import * as z from 'zod';

/** Without `username` the spec's login: the bootstrap owner. */
export const loginInput = z.object({ username: z.string().min(1).max(200).optional(), password: z.string().min(1).max(1024) });

export const secondFactorInput = z
  .object({ code: z.string().min(1).max(32).optional(), recoveryCode: z.string().min(1).max(64).optional() })
  .refine((value) => (value.code === undefined) !== (value.recoveryCode === undefined), 'give code or recoveryCode');
