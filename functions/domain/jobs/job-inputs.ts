/** What the admin sends to start the code jobs. */
import * as z from 'zod';

/** A generation job (code-generation-job.ts): up to a million codes. */
export const generateCodesJobInput = z.object({
  count: z.number().int().min(1, 'must be between 1 and 1000000').max(1_000_000, 'must be between 1 and 1000000'),
  label: z.string().max(200).default(''),
});

/**
 * A bulk revocation of an event's codes as a job: those of one exact `label`, or of one `status`
 * (`active`: neither revoked nor expired; revoked codes are revoked already).
 */
export const revokeCodesJobInput = z
  .object({
    label: z.string().max(200).optional(),
    status: z.enum(['unused', 'redeemed', 'expired', 'active']).optional(),
  })
  .strict()
  .refine((value) => (value.label === undefined) !== (value.status === undefined), 'give label or status (exactly one)');
