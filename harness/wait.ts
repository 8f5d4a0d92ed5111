import { vi } from 'vitest';

/** `probe`'s value once it has one (not null, undefined or false), asked every `interval` ms; fails naming `what` after `timeout`. */
export function valueOf<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  { timeout = 60_000, interval = 250 } = {},
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === null || value === undefined || value === false) throw new Error(`still waiting for ${what}`);
      return value;
    },
    { timeout, interval },
  );
}
