import { derivedString, randomString } from '../random';
import type { CodeRecord } from '../records';

/**
 * Codes are typed by people: upper case and digits without the look-alikes
 * 0/O and 1/I. 32 symbols × 12 characters = 60 bits, against a brute force
 * slowed to 5 tries per minute per address.
 */
export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 12;
const ALPHANUMERIC = /^[A-Za-z0-9]+$/;

export function generateAccessCode(): string {
  return randomString(CODE_ALPHABET, CODE_LENGTH);
}

/** Code number `index` of a generation job with secret `seed`; `attempt` counts the collisions with other codes before it. */
export function derivedAccessCode(seed: Uint8Array, index: number, attempt: number): string {
  return derivedString(CODE_ALPHABET, CODE_LENGTH, seed, `code:${index}:${attempt}`);
}

/** A code as it is made: never revoked, redeemed or claimed. */
export function newCodeRecord(fields: Pick<CodeRecord, 'id' | 'code' | 'eventId' | 'label' | 'createdAt' | 'eventActive'>): CodeRecord {
  return {
    ...fields,
    isRevoked: false,
    revokedAt: null,
    revokedChangedAt: null,
    redeemedAt: null,
    redeemedIp: null,
    session: null,
    endedSessions: [],
    revision: 0,
  };
}

/** The code as stored, or null when the input is not alphanumeric. Lower case is accepted as typed. */
export function normalizeAccessCode(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const trimmed = input.trim();
  if (trimmed.length === 0 || trimmed.length > 64 || !ALPHANUMERIC.test(trimmed)) return null;
  return trimmed.toUpperCase();
}
