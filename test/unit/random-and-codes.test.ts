import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, CODE_LENGTH, generateAccessCode, normalizeAccessCode } from '../../functions/domain/codes';
import { randomString } from '../../functions/domain/random';

describe('access codes', () => {
  it('are 12 characters of an unambiguous upper-case alphabet', () => {
    for (let i = 0; i < 1000; i++) expect(generateAccessCode()).toMatch(new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`));
    expect(CODE_ALPHABET).not.toMatch(/[01IO]/);
  });

  it('normalizes typed input and rejects what is not alphanumeric', () => {
    expect(normalizeAccessCode(' abcd2345efgh ')).toBe('ABCD2345EFGH');
    for (const bad of ['', '   ', 'AB-CD', 'ÄBC', null, 42, 'A'.repeat(65)]) expect(normalizeAccessCode(bad)).toBeNull();
  });
});

describe('randomString', () => {
  it('has no modulo bias: every symbol of a 62-symbol alphabet is about equally frequent', () => {
    // 256 % 62 = 8: a plain `byte % 62` would make the first 8 symbols 25 % more frequent.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const sample = randomString(alphabet, 310_000);
    const counts = new Map<string, number>();
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    const expected = sample.length / alphabet.length;
    const chiSquare = [...alphabet].reduce((sum, ch) => sum + ((counts.get(ch) ?? 0) - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: p = 0.0001 at about 112; a biased generator scores in the thousands.
    expect(chiSquare).toBeLessThan(112);
  });

  it('refuses alphabets it cannot sample uniformly', () => {
    expect(() => randomString('A', 4)).toThrow(RangeError);
  });
});
