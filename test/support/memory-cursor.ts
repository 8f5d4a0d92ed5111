import { InvalidCursor } from '../../functions/domain/errors';

/** Paging cursors of the in-memory stores: a small record as base64url JSON, checked on the way back. */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string, valid: (value: Record<string, unknown>) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor('not a cursor');
  }
  if (typeof value !== 'object' || value === null || !valid(value as Record<string, unknown>)) throw new InvalidCursor('not a cursor of this listing');
  return value as T;
}
