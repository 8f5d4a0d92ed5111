import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares secrets in constant time; hashing first hides the length too. */
export function secretsEqual(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
