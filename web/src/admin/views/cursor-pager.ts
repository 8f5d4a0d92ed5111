/**
 * "← Newer" and "Older →" over a listing the API pages with cursors (codes, live sessions, orders):
 * the cursors of the pages before the shown one are kept, the shown page's own last, so "Newer" goes
 * back exactly and a refresh reloads the page on screen.
 */
import { h } from '../../shared/dom';

export interface CursorPager {
  element: HTMLElement;
  /** The shown page's cursor; null on the first page. */
  cursor(): string | null;
  /**
   * Asks for the shown page with its cursor: the answer, or null when a later ask began before it came
   * (a page turned during a refresh), so an older answer never draws over a newer page.
   */
  fetch<T>(ask: (cursor: string | null) => Promise<T>): Promise<T | null>;
  /** The shown page's number, from 1. */
  page(): number;
  /** Back to the first page (a new filter, a list emptied). */
  reset(): void;
  /** Once a page is drawn: the buttons as its place and `nextCursor` (an older page, or none) allow. */
  update(nextCursor: string | null): void;
}

/**
 * `key` prefixes the buttons' `data-key` (`<key>-newer`, `<key>-older`); `turn` runs after the cursor
 * moved (it loads the page), with the button pressed; `info`, when given, leads the toolbar.
 */
export function cursorPager(key: string, turn: (button: HTMLButtonElement) => void, info?: HTMLElement): CursorPager {
  const cursors: (string | null)[] = [null];
  let next: string | null = null;
  // The shown page's place, for an ask that fails: the pager goes back to what is on screen.
  let drawn: { cursors: (string | null)[]; next: string | null } = { cursors: [...cursors], next };
  let asks = 0;
  const newer = h('button', { type: 'button', className: 'small', 'data-key': `${key}-newer` }, '← Newer');
  const older = h('button', { type: 'button', className: 'small', 'data-key': `${key}-older` }, 'Older →');
  const element = h('div', { className: 'toolbar pager' }, info ?? null, newer, older);
  // Until the page a turn asked for is drawn, its own older page is unknown: a second press waits for it.
  newer.addEventListener('click', () => {
    if (cursors.length === 1) return;
    cursors.pop();
    next = null;
    turn(newer);
  });
  older.addEventListener('click', () => {
    if (!next) return;
    cursors.push(next);
    next = null;
    turn(older);
  });
  return {
    element,
    cursor: () => cursors[cursors.length - 1]!,
    async fetch(ask) {
      const ours = ++asks;
      try {
        const answer = await ask(cursors[cursors.length - 1]!);
        return ours === asks ? answer : null;
      } catch (error) {
        if (ours === asks) {
          cursors.splice(0, cursors.length, ...drawn.cursors);
          next = drawn.next;
        }
        throw error;
      }
    },
    page: () => cursors.length,
    reset() {
      cursors.splice(1);
      next = null;
    },
    update(nextCursor) {
      next = nextCursor;
      drawn = { cursors: [...cursors], next };
      newer.hidden = cursors.length === 1;
      older.hidden = !nextCursor;
      element.hidden = newer.hidden && older.hidden;
    },
  };
}
