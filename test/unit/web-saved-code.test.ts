import { describe, expect, it } from 'vitest';
import { forgetCode, saveCode, savedCode, type CodeStorage } from '../../web/src/viewer/saved-code';

/** localStorage's interface over a Map. */
function memoryStorage(): CodeStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

const NOW = Date.parse('2026-11-20T20:00:00Z');
const entry = (eventId: string, code: string, savedAt: number, expiresAt = '2026-11-22T20:00:00.000Z') => ({ eventId, code, expiresAt, savedAt });

describe('the code saved on this device', () => {
  it('keeps one code per event until it expires', () => {
    const storage = memoryStorage();
    saveCode(storage, entry('ev1', 'AAAA', NOW));
    saveCode(storage, entry('ev1', 'BBBB', NOW + 1));
    expect(storage.map.size).toBe(1);
    expect(savedCode(storage, NOW, 'ev1')?.code).toBe('BBBB');
    expect(savedCode(storage, Date.parse('2026-11-22T20:00:00Z'), 'ev1')).toBeNull();
    // An expired entry goes.
    expect(storage.map.size).toBe(0);
  });

  it('resumes the event the page names, else the code saved last', () => {
    const storage = memoryStorage();
    saveCode(storage, entry('ev1', 'AAAA', NOW - 10));
    saveCode(storage, entry('ev2', 'BBBB', NOW - 5));
    expect(savedCode(storage, NOW, 'ev1')?.code).toBe('AAAA');
    expect(savedCode(storage, NOW)?.code).toBe('BBBB');
    expect(savedCode(storage, NOW, 'ev3')).toBeNull();
  });

  it('forgets a code wherever it was saved, and drops what it cannot read', () => {
    const storage = memoryStorage();
    saveCode(storage, entry('ev1', 'AAAA', NOW));
    saveCode(storage, entry('ev2', 'BBBB', NOW));
    storage.setItem('stagedoor.code.ev3', '{not json');
    storage.setItem('stagedoor.checkout.ev1', 'cs_123');
    forgetCode(storage, 'AAAA');
    expect([...storage.map.keys()].sort()).toEqual(['stagedoor.checkout.ev1', 'stagedoor.code.ev2']);
  });

  it('a storage that refuses writes is no error', () => {
    const storage = memoryStorage();
    storage.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError');
    };
    expect(() => saveCode(storage, entry('ev1', 'AAAA', NOW))).not.toThrow();
    expect(savedCode(storage, NOW)).toBeNull();
  });
});
