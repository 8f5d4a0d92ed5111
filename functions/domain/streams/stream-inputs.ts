/** What the ingest sends for its publish lease. */
import * as z from 'zod';

export const leaseInput = z.object({
  /** The ingest process asking (its own random id). */
  holder: z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be 1-100 letters, digits or _.:-'),
  action: z.enum(['acquire', 'release', 'handover']),
  /** The encoder the asking process has on air, or would put on air (absent: the primary, as older ingests). */
  role: z.enum(['primary', 'backup']).optional(),
  /** The holder has the other encoder connected too: it keeps the standby place, so that encoder is not taken twice elsewhere. */
  standby: z.enum(['primary', 'backup']).optional(),
});
