/** What the admin sends to generate, list, export and revoke codes. */
import * as z from 'zod';
import { LIST_LIMITS } from '../config';
import { recordId } from '../inputs';
import { TOKEN_STATUSES } from '../records';
import { isTimeZone } from '../time-zone';

export const generateCodesInput = z.object({
  count: z.number().int().min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500'),
  label: z.string().max(200).default(''),
});

export const bulkRevokeInput = z.object({
  tokenIds: z.array(recordId).min(1).max(1000),
});

/** A page of codes: `label` exact, `email` a buyer's (their orders' codes), `code` one exact code (looked up, not searched for). */
export const codeListQuery = z.object({
  status: z.enum([...TOKEN_STATUSES, 'active']).optional(),
  eventId: recordId.optional(),
  label: z.string().max(200).optional(),
  email: z.string().min(1).max(320).optional(),
  code: z.string().min(1).max(64).optional(),
  cursor: z.string().min(1).max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(LIST_LIMITS.codePage).default(LIST_LIMITS.codePage),
});

/** The CSV export: `tz`, the organiser's IANA time zone, puts its offset on the times (UTC without it). */
export const codeExportQuery = z.object({
  tz: z.string().max(64).refine(isTimeZone, 'is not a known time zone (use an IANA name such as Europe/Berlin)').optional(),
});
