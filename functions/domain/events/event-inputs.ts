/** What the admin sends to create or edit an event, its sale included. */
import * as z from 'zod';
import { ticketsPerOrder, timestamp } from '../inputs';
import { geoInput } from './geo';

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

/** Devices that may watch on one code at once (records.ts `devicesPerCode`); a refinement words a fraction, as for a price. */
export const MAX_DEVICES_PER_CODE = 5;
const devicesPerCode = z
  .number()
  .refine(Number.isInteger, 'must be a whole number from 1 to 5')
  .min(1, 'must be at least 1')
  .max(MAX_DEVICES_PER_CODE, `must be at most ${MAX_DEVICES_PER_CODE}`);

const eventFields = {
  title: z.string().trim().min(1, 'is required').max(200),
  description: z.string().max(5000),
  startsAt: timestamp,
  endsAt: timestamp,
  accessWindowHours: z.number().int().min(0).max(8760),
  streamUrl: link(/^(https?|rtmps?):$/).nullable(),
  posterUrl: link(/^https?:$/).nullable(),
  sale: saleInput,
  /** The organiser's address for buyers' questions (the ticket email, the viewer page); null: none. */
  contactEmail: z.email('must be an email address').max(320).nullable(),
  /** Where the event may be watched (geo.ts); null: anywhere. */
  geo: geoInput,
  devicesPerCode,
  /** Forensic A/B watermarking of the next publishes (records.ts `watermark`). */
  watermark: z.boolean(),
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
    contactEmail: eventFields.contactEmail.default(null),
    geo: eventFields.geo.default(null),
    devicesPerCode: eventFields.devicesPerCode.default(1),
    watermark: eventFields.watermark.default(false),
  })
  .refine(endsAfterStart, { message: 'must be after startsAt', path: ['endsAt'] });

export const updateEventInput = z.object(eventFields).partial();
