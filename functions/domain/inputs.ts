import * as z from 'zod';
import { MAX_TICKETS_PER_ORDER } from './config';
import { InvalidInput } from './errors';

const perOrder = `must be between 1 and ${MAX_TICKETS_PER_ORDER}`;
/** A number of tickets in one order: a sale's `maxPerOrder` and a checkout's `quantity`. */
export const ticketsPerOrder = z.number().refine(Number.isInteger, perOrder).min(1, perOrder).max(MAX_TICKETS_PER_ORDER, perOrder);

/** A point in time with its zone, kept as UTC ISO 8601. */
export const timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/, 'must be an ISO 8601 timestamp with a time zone')
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be a valid date')
  .transform((value) => new Date(value).toISOString());

/**
 * Event and code ids as the API issues them (`randomId`), with room to spare;
 * anything else cannot name a record, so it is a 400/404 before it reaches
 * the table (where a 3,000-character key is a ValidationException, a 500).
 */
export const recordId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a valid id');

/** Parses or throws `InvalidInput` naming the first offending field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.');
  const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  throw new InvalidInput(field || null, message);
}
