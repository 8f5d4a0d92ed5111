import { InvalidCursor } from '../domain/errors';

/**
 * Paging cursors: a DynamoDB key (or any small record of strings) as
 * base64url JSON. Decoding checks the shape and lets the caller check that
 * the cursor belongs to its listing, so a forged cursor is a 400, never a 500.
 */
export function encodeCursor(key: Record<string, string>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string, fields: readonly string[], belongs: (key: Record<string, string>) => boolean): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor('not a cursor');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCursor('not a cursor');
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== fields.length || !fields.every((field) => typeof record[field] === 'string' && (record[field] as string).length <= 512)) {
    throw new InvalidCursor('not a cursor');
  }
  const key = record as Record<string, string>;
  if (!belongs(key)) throw new InvalidCursor('cursor of another listing');
  return key;
}
