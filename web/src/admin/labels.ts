/** Words the console shows for API values, and the pure rules behind its forms. Unit-tested. */
import { formatDateTime, fromDateTimeLocal } from '../shared/time';
import { currencyDigits } from '../shared/currency';
import type { AdminEvent, AuditEntry, EventInput, EventStatus, Role, CodeFilter, CodeStatus } from './api';
import type { SignedOutReason } from '../../../functions/domain/errors';
import { geoRuleText } from './models/geo-picker-model';
import type { GeoRule } from '../../../functions/domain/records';

export const EVENT_STATUS_LABELS: Record<EventStatus, string> = {
  'not-started': 'Not started',
  live: 'Live',
  ended: 'Ended',
  recording: 'Recording',
};

export const EVENT_STATUS_TONES = { live: 'live', 'not-started': 'muted', ended: 'muted', recording: 'warn' } as const;

export const CODE_STATUS_LABELS: Record<CodeStatus, string> = {
  unused: 'Unused',
  redeemed: 'Redeemed',
  revoked: 'Revoked',
  expired: 'Expired',
};

/** The codes list's filter: a status, or the tickets whose holders had trouble watching. */
export type CodeListFilter = CodeFilter | 'trouble';

export const CODE_FILTERS: { value: CodeListFilter; label: string }[] = [
  { value: '', label: 'All codes' },
  { value: 'active', label: 'Usable' },
  { value: 'unused', label: 'Unused' },
  { value: 'redeemed', label: 'Redeemed' },
  { value: 'revoked', label: 'Revoked' },
  { value: 'expired', label: 'Expired' },
  { value: 'trouble', label: 'With trouble (stalls, failed starts)' },
];

export type EventFilter = 'current' | 'archived' | 'all';

export const EVENT_FILTERS: { value: EventFilter; label: string }[] = [
  { value: 'current', label: 'Current' },
  { value: 'archived', label: 'Archived' },
  { value: 'all', label: 'All' },
];

/** Current = not archived (active or deactivated); newest start first. */
export function filterEvents<T extends Pick<AdminEvent, 'isArchived' | 'startsAt'>>(events: T[], filter: EventFilter): T[] {
  const shown = events.filter((event) =>
    filter === 'all' ? true : filter === 'archived' ? event.isArchived : !event.isArchived,
  );
  return shown.sort((a, b) => Date.parse(b.startsAt) - Date.parse(a.startsAt));
}

/** Splits the API's validation error `"<field>: <message>"`; field null when the text has no known field. */
export function parseFieldError(error: string, fields: readonly string[]): { field: string | null; message: string } {
  const match = /^([A-Za-z]+):\s*(.+)$/s.exec(error);
  if (match && fields.includes(match[1]!)) return { field: match[1]!, message: match[2]! };
  return { field: null, message: error };
}

export const EVENT_FIELDS = [
  'title',
  'description',
  'startsAt',
  'endsAt',
  'accessWindowHours',
  'devicesPerCode',
  'watermark',
  'posterUrl',
  'saleOpen',
  'salePrice',
  'saleCurrency',
  'saleCapacity',
  'saleMaxPerOrder',
  'geo',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

/** The form field of each field of the API's `sale` (its errors read `sale.priceMinor: …`). */
const SALE_FIELDS: Record<string, EventField> = { open: 'saleOpen', priceMinor: 'salePrice', currency: 'saleCurrency', capacity: 'saleCapacity', maxPerOrder: 'saleMaxPerOrder' };

/** The API's error with a sale field named as the form names it (`salePrice: must be at least 1`). */
export function formFieldError(error: string): string {
  return error.replace(/^sale\.(\w+):/, (whole, field: string) => (SALE_FIELDS[field] ? `${SALE_FIELDS[field]}:` : whole));
}

/** A price in the currency's minor unit as the form shows it (`1500` EUR → `15.00`). */
export function priceInput(minor: number, currency: string): string {
  const digits = currencyDigits(currency) ?? 2;
  return (minor / 10 ** digits).toFixed(digits);
}

/**
 * The sale of the form's "On sale" section: null when no price is given (the event is not sold here),
 * else the API's `sale` with the price in the currency's minor unit.
 */
function saleFromForm(values: EventFormValues, errors: Partial<Record<EventField, string>>): EventInput['sale'] {
  const price = values.salePrice.trim();
  const open = values.saleOpen === 'true';
  if (!price && !open) return null;
  const currency = values.saleCurrency.trim().toLowerCase() || 'eur';
  const digits = currencyDigits(currency);
  if (digits === null || !/^[a-z]{3}$/.test(currency)) errors.saleCurrency = 'Enter a currency code such as EUR or USD.';
  const places = digits ?? 2;
  const pattern = places === 0 ? /^\d+$/ : new RegExp(`^\\d+([.,]\\d{1,${places}})?$`);
  const priceMinor = Math.round(Number(price.replace(',', '.')) * 10 ** places);
  if (!pattern.test(price) || priceMinor < 1) errors.salePrice = `Enter the price of one ticket, such as ${places === 0 ? '1500' : '15.00'}.`;
  const capacityText = values.saleCapacity.trim();
  const capacity = capacityText === '' ? null : Number(capacityText);
  if (capacity !== null && (!Number.isInteger(capacity) || capacity < 1)) errors.saleCapacity = 'Enter how many tickets to sell in all (at least 1), or leave it empty for no limit.';
  const maxPerOrder = values.saleMaxPerOrder.trim() === '' ? 10 : Number(values.saleMaxPerOrder);
  if (!Number.isInteger(maxPerOrder) || maxPerOrder < 1 || maxPerOrder > 20) errors.saleMaxPerOrder = 'Enter 1 to 20 tickets.';
  return { open, priceMinor, currency, capacity, maxPerOrder };
}

export type EventFormValues = Record<EventField, string>;

/** The event form's line on what watermarking costs (docs/watermark-design.md). */
export const WATERMARK_COST =
  'Watermarking encodes the video twice: about twice the ingest\'s CPU, and twice the stored segments; viewers\' bandwidth does not change. A change during a live show applies from the next publish.';

/**
 * The API body for the event form's raw values (datetime-local in local
 * time), or per-field messages for what the browser cannot check itself.
 */
export function eventInputFromForm(
  values: EventFormValues,
): { input: EventInput; errors?: undefined } | { input?: undefined; errors: Partial<Record<EventField, string>> } {
  const errors: Partial<Record<EventField, string>> = {};
  const title = values.title.trim();
  if (!title) errors.title = 'Enter a title.';
  const startsAt = fromDateTimeLocal(values.startsAt);
  if (!startsAt) errors.startsAt = 'Enter when the event starts.';
  const endsAt = fromDateTimeLocal(values.endsAt);
  if (!endsAt) errors.endsAt = 'Enter when the event ends.';
  else if (startsAt && Date.parse(endsAt) <= Date.parse(startsAt)) errors.endsAt = 'The end must be after the start.';
  const hours = values.accessWindowHours.trim() === '' ? 48 : Number(values.accessWindowHours);
  if (!Number.isInteger(hours) || hours < 0 || hours > 8760) errors.accessWindowHours = 'Enter whole hours from 0 to 8760.';
  const posterUrl = ((value: string): string | null => {
    if (!value) return null;
    try {
      if (!/^https?:$/.test(new URL(value).protocol)) throw new Error('protocol');
      return value;
    } catch {
      errors.posterUrl = 'Enter a full URL, such as https://example.com/poster.jpg.';
      return null;
    }
  })(values.posterUrl.trim());
  const sale = saleFromForm(values, errors);
  const geo = geoFromForm(values.geo, errors);
  const devicesPerCode = devicesFromForm(values, errors);
  if (Object.keys(errors).length > 0) return { errors };
  return {
    input: {
      title,
      description: values.description.trim(),
      startsAt: startsAt!,
      endsAt: endsAt!,
      accessWindowHours: hours,
      posterUrl,
      sale,
      geo,
      devicesPerCode,
      watermark: values.watermark === 'true',
    },
  };
}

/** The picker's rule (JSON of the API's `geo`, or `"empty"`: a list without a country, which the form refuses). */
function geoFromForm(value: string, errors: Partial<Record<EventField, string>>): EventInput['geo'] {
  const rule = JSON.parse(value) as EventInput['geo'] | 'empty';
  if (rule !== 'empty') return rule;
  errors.geo = 'Choose at least one country, or Anywhere.';
  return null;
}

/** How many devices may watch on one code at once (empty: 1, the API's default). */
function devicesFromForm(values: EventFormValues, errors: Partial<Record<EventField, string>>): number {
  const devices = values.devicesPerCode.trim() === '' ? 1 : Number(values.devicesPerCode);
  if (!Number.isInteger(devices) || devices < 1 || devices > 5) errors.devicesPerCode = 'Enter 1 to 5 devices.';
  return devices;
}

/** Codes on one page of the codes list (the API pages them: no page renders a large event's codes whole). */
export const CODES_PAGE = 100;

/** Codes generated while the admin waits; more are made by a background job. */
export const CODES_AT_ONCE = 500;
export const MAX_CODES_PER_JOB = 1_000_000;

/** A count for the generate form: integer 1..1,000,000, or a message. */
export function checkCodeCount(value: string): { count: number; error?: undefined } | { error: string } {
  const count = Number(value);
  if (value.trim() === '' || !Number.isInteger(count) || count < 1 || count > MAX_CODES_PER_JOB) {
    return { error: `Enter a whole number from 1 to ${formatCount(MAX_CODES_PER_JOB)}.` };
  }
  return { count };
}

/** A point of a job's progress, as the console saw it. */
export interface ProgressSample {
  /** Milliseconds (the console's clock). */
  at: number;
  done: number;
}

/** Seconds a job still needs at the pace seen between two samples; null until it has moved. */
export function secondsLeft(first: ProgressSample, latest: ProgressSample, total: number): number | null {
  const rate = (latest.done - first.done) / ((latest.at - first.at) / 1000);
  if (!(rate > 0)) return null;
  return Math.max(0, (total - latest.done) / rate);
}

/** `about 40 s left`, `about 3 min left`, `about 1 h 5 min left`; null: not known yet. */
export function describeTimeLeft(seconds: number | null): string {
  if (seconds === null) return 'working out the time left';
  if (seconds < 1) return 'almost done';
  if (seconds < 60) return `about ${Math.ceil(seconds)} s left`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `about ${minutes} min left`;
  return `about ${Math.floor(minutes / 60)} h ${minutes % 60} min left`;
}

/** `12,000 of 20,000 (60 %)`: the percentage rounded down, so 100 % means done. */
export function describeProgress(done: number, total: number): string {
  const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
  return `${formatCount(done)} of ${formatCount(total)} (${percent} %)`;
}

/** Words for an API failure on an admin action. */
export function adminErrorMessage(status: number, error: string): string {
  if (status === 0) return "Couldn't reach the server. Check your connection and try again.";
  if (status === 401) return 'Your session has ended. Sign in again.';
  if (status === 403) return "Your role doesn't allow that. Ask the owner.";
  if (status >= 500) return 'Something went wrong on the server. Try again in a moment.';
  return error;
}

/** Why the console is back at sign-in, from the API's 401 `reason` (docs/api.md). */
export function signedOutMessage(reason: SignedOutReason | string | undefined): string {
  switch (reason) {
    case 'account-changed':
      return 'An owner changed your account (its role, password or two-factor sign-in), which signed you out. Sign in again.';
    case 'account-disabled':
      return 'An owner disabled your account, which signed you out. Ask an owner to enable it.';
    case 'session-expired':
      return 'Your session expired. Sign in again.';
    case 'signed-out':
      return 'You were signed out. Sign in again.';
    default:
      return 'Your session has ended. Sign in again.';
  }
}

/** Every count the console shows, with thousands separators: `100,004`. The one formatter, so figures read alike everywhere. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** `1 code`, `3 codes`, `20,000 codes`. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** An amount in the currency's minor unit, in the reader's locale: `1500` EUR → `€15.00`. */
export function formatMoney(minor: number, currency: string): string {
  const digits = currencyDigits(currency) ?? 2;
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(minor / 10 ** digits);
  } catch {
    return `${(minor / 10 ** digits).toFixed(digits)} ${currency.toUpperCase()}`;
  }
}

/**
 * The codes pager's words: `Page 3 of about 1,000` from the event's code count when the list is the event's
 * whole (a filter's share of the codes is not known: then `Page 3`). "About": codes come and go between pages.
 */
export function pageLabel(page: number, codeCount: number | null, pageSize: number): string {
  if (codeCount === null) return `Page ${formatCount(page)}`;
  const pages = Math.max(page, Math.ceil(codeCount / pageSize));
  return `Page ${formatCount(page)} of about ${formatCount(pages)}`;
}

/** What a failed job's stored error (a cause from the worker's step, often an SDK's words) says, and whether Retry can help. */
const JOB_CAUSES: [RegExp, string, boolean][] = [
  [/event was deleted/i, 'the event was deleted meanwhile', false],
  [/not configured/i, 'this system is not set up for it', false],
  [/worker stopped \(timed out or crashed\)/i, 'the background worker ran out of time or stopped on every try', true],
  [/DynamoDB|InternalServerError|ProvisionedThroughput|Throttl|RequestLimitExceeded|TransactionConflict/i, 'the database was unavailable or too busy', true],
  [/\bS3\b|NoSuchBucket|SlowDown/i, 'the file store was unavailable', true],
  [/Stripe/i, 'Stripe did not answer', true],
  [/ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|socket hang up|fetch failed|network/i, 'a connection failed', true],
];

/**
 * A failed job in plain words: `Stopped: 25 codes could not be revoked because the database was unavailable or
 * too busy. Retry goes on from where it stopped.` The job's own words before the technical cause are kept
 * (what failed); the cause (an SDK's message) becomes a sentence.
 */
export function jobFailureText(error: string | null | undefined): string {
  const text = (error ?? '').trim();
  const [, cause, retryable] = JOB_CAUSES.find(([pattern]) => pattern.test(text)) ?? [null, 'of an error on the server', true];
  // "25 codes could not be revoked: DynamoDB unavailable: …": what failed, then the cause.
  const what = /^(\d[\d,]* [\w ]+? could not be [\w ]+?):/.exec(text)?.[1];
  return `Stopped${what ? `: ${what}` : ''} because ${cause}.${retryable ? ' Retry goes on from where it stopped.' : ''}`;
}

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  manager: 'Manager',
  'box-office': 'Box office',
  'stream-tech': 'Stream tech',
  'read-only': 'Read-only',
};

/** Longer values (a description) are cut here; the entry keeps them whole. */
const CHANGE_VALUE_CHARS = 60;

/** One changed value in words: times in local time, nothing as "none". */
export function changeValueText(field: string, value: unknown): string {
  if (field === 'geo') return geoRuleText(value as GeoRule);
  if (value === null || value === undefined || value === '') return 'none';
  if (typeof value === 'string' && /At$/.test(field) && !Number.isNaN(Date.parse(value))) return formatDateTime(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > CHANGE_VALUE_CHARS ? `${text.slice(0, CHANGE_VALUE_CHARS - 1)}…` : text;
}

/** Each change of an entry as "field: before → after". */
export function changeLines(changes: AuditEntry['changes']): string[] {
  return Object.entries(changes ?? {}).map(([field, { from, to }]) => `${field}: ${changeValueText(field, from)} → ${changeValueText(field, to)}`);
}
