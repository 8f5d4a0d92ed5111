/**
 * Access codes as the viewer types them, and what to tell them when the API
 * turns one down. Pure functions: unit-tested in `test/unit/web-viewer-helpers.test.ts`.
 */
import type { RefusalReason } from './types';

/** Upper-cases and drops spaces and dashes, so `abcd-efgh ijkl` works as typed from a ticket. */
export function normalizeCode(input: string): string {
  return input.replace(/[\s-]+/g, '').toUpperCase();
}

/** A message when the (normalised) code cannot be valid, before asking the API; null when it may be. */
export function codeFormatProblem(code: string): string | null {
  if (code === '') return 'Enter the access code from your ticket.';
  if (!/^[A-Z0-9]+$/.test(code)) return 'Access codes contain only letters and numbers. Check the code and try again.';
  return null;
}

/**
 * What the viewer reads for a failed `POST /api/tokens/validate`, from its
 * status and, where one status has several causes, the refusal's `reason`.
 * Status 0 = no answer.
 */
export function validateErrorMessage(status: number, reason?: RefusalReason | string): string {
  switch (status) {
    case 0:
      return "We couldn't reach Stagedoor. Check your connection and try again.";
    case 400:
      return 'Enter the access code from your ticket.';
    case 401:
      return "That access code isn't valid. Check it and try again.";
    case 403:
      if (reason === 'geo') return 'This event is not available in your country.';
      return reason === 'revoked'
        ? 'This access code has been revoked. Contact the organiser if you think this is a mistake.'
        : 'This event is not available right now.';
    case 409:
      return 'This access code is in use on another device. Stop watching there (or wait two minutes) and try again.';
    case 410:
      return 'This access code has expired.';
    case 429:
      return 'Too many tries. Wait a minute, then try again.';
    default:
      return 'Something went wrong on our side. Try again in a moment.';
  }
}

/**
 * Whether a refused `POST /api/tokens/validate` means the code itself will
 * never work again (unknown, revoked, expired): a saved copy is then forgotten.
 * Not a code in use, an event made unavailable (it may come back), or a failure.
 */
export function refusalEndsCode(status: number, reason?: RefusalReason | string): boolean {
  return status === 401 || status === 410 || (status === 403 && reason === 'revoked');
}

/**
 * The page address without its `code` parameter (path, other parameters and
 * fragment kept), or null when it has none: a code read from a link must not
 * stay in the history or travel with a copied address.
 */
export function addressWithoutCode(href: string): string | null {
  const url = new URL(href);
  if (!url.searchParams.has('code')) return null;
  url.searchParams.delete('code');
  return `${url.pathname}${url.search}${url.hash}`;
}
