import * as z from 'zod';
import { LIST_LIMITS, MAX_TICKETS_PER_ORDER } from './config';
import { InvalidInput } from './errors';
import { TOKEN_STATUSES } from './records';
import { isTimeZone } from './time-zone';

const perOrder = `must be between 1 and ${MAX_TICKETS_PER_ORDER}`;
/** A number of tickets in one order: a sale's `maxPerOrder` and a checkout's `quantity`. */
export const ticketsPerOrder = z.number().refine(Number.isInteger, perOrder).min(1, perOrder).max(MAX_TICKETS_PER_ORDER, perOrder);

export const timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/, 'must be an ISO 8601 timestamp with a time zone')
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be a valid date')
  .transform((value) => new Date(value).toISOString());

const link = (protocols: RegExp) =>
  z
    .string()
    .max(2048)
    .refine((value) => {
      try {
        return protocols.test(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'must be a URL');

/** ISO 4217 codes this runtime knows (Intl's list), as Stripe takes them: lower case. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((code) => code.toLowerCase()));

/** An event's ticket sale (records.ts `EventSale`); null takes the event off sale for good. */
export const saleInput = z
  .object({
    open: z.boolean(),
    // A refinement, not `.int()`: zod reports a fraction as a wrong type, which parseInput words as missing.
    priceMinor: z.number().refine(Number.isInteger, 'must be a whole number of the currency\'s minor unit (cents)').min(1, 'must be at least 1').max(99_999_999, 'must be at most 99999999'),
    currency: z
      .string()
      .trim()
      .toLowerCase()
      .refine((code) => CURRENCIES.has(code), 'must be an ISO 4217 currency code such as "eur" or "usd"'),
    capacity: z.number().refine(Number.isInteger, 'must be a whole number').min(1, 'must be at least 1 (null: no limit)').max(10_000_000, 'must be at most 10000000').nullable(),
    maxPerOrder: ticketsPerOrder,
  })
  .nullable();

const eventFields = {
  title: z.string().trim().min(1, 'is required').max(200),
  description: z.string().max(5000),
  startsAt: timestamp,
  endsAt: timestamp,
  accessWindowHours: z.number().int().min(0).max(8760),
  streamUrl: link(/^(https?|rtmps?):$/).nullable(),
  posterUrl: link(/^https?:$/).nullable(),
  sale: saleInput,
};

const endsAfterStart = (value: { startsAt?: string; endsAt?: string }) =>
  !value.startsAt || !value.endsAt || value.endsAt > value.startsAt;

export const createEventInput = z
  .object({
    ...eventFields,
    description: eventFields.description.default(''),
    accessWindowHours: eventFields.accessWindowHours.default(48),
    streamUrl: eventFields.streamUrl.default(null),
    posterUrl: eventFields.posterUrl.default(null),
    sale: eventFields.sale.default(null),
  })
  .refine(endsAfterStart, { message: 'must be after startsAt', path: ['endsAt'] });

export const updateEventInput = z.object(eventFields).partial();

export const generateCodesInput = z.object({
  count: z.number().int().min(1, 'must be between 1 and 500').max(500, 'must be between 1 and 500'),
  label: z.string().max(200).default(''),
});

/** A generation job (code-generation-job.ts): up to a million codes. */
export const generateCodesJobInput = z.object({
  count: z.number().int().min(1, 'must be between 1 and 1000000').max(1_000_000, 'must be between 1 and 1000000'),
  label: z.string().max(200).default(''),
});

/**
 * Event and code ids as the API issues them (`randomId`), with room to spare;
 * anything else cannot name a record, so it is a 400/404 before it reaches
 * the table (where a 3,000-character key is a ValidationException, a 500).
 */
export const recordId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a valid id');

export const bulkRevokeInput = z.object({
  tokenIds: z.array(recordId).min(1).max(1000),
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

/** A page of codes: `label` exact, `code` one exact code (looked up, not searched for). */
export const codeListQuery = z.object({
  status: z.enum([...TOKEN_STATUSES, 'active']).optional(),
  eventId: recordId.optional(),
  label: z.string().max(200).optional(),
  code: z.string().min(1).max(64).optional(),
  cursor: z.string().min(1).max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(LIST_LIMITS.codePage).default(LIST_LIMITS.codePage),
});

/** The CSV export: `tz`, the organiser's IANA time zone, puts its offset on the times (UTC without it). */
export const codeExportQuery = z.object({
  tz: z.string().max(64).refine(isTimeZone, 'is not a known time zone (use an IANA name such as Europe/Berlin)').optional(),
});

/** Without `username` the spec's login: the bootstrap owner. */
export const loginInput = z.object({ username: z.string().min(1).max(200).optional(), password: z.string().min(1).max(1024) });

export const secondFactorInput = z
  .object({ code: z.string().min(1).max(32).optional(), recoveryCode: z.string().min(1).max(64).optional() })
  .refine((value) => (value.code === undefined) !== (value.recoveryCode === undefined), 'give code or recoveryCode');

export const leaseInput = z.object({
  /** The ingest process asking (its own random id). */
  holder: z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be 1-100 letters, digits or _.:-'),
  action: z.enum(['acquire', 'release']),
});

/** Parses or throws `InvalidInput` naming the first offending field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.');
  const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  throw new InvalidInput(field || null, message);
}
