/**
 * The place of a listing the API pages with cursors (codes, live sessions, orders), without the DOM: the
 * cursors of the pages before the shown one are kept, the shown page's own last, so "Newer" goes back exactly
 * and a refresh reloads the page on screen. Pages are asked for under the newest-answer rule.
 */
import { listeners } from './listeners';
import { newestAnswer } from './newest-answer';

export interface CursorPagerModel {
  /** The shown page's cursor; null on the first page. */
  cursor(): string | null;
  /** The shown page's number, from 1. */
  page(): number;
  /** Whether there is a newer page to go back to. */
  hasNewer(): boolean;
  /** Whether the drawn page said there is an older one (unknown while a turn waits for its page). */
  hasOlder(): boolean;
  /** Moves to the newer page: false when on the first one. */
  newer(): boolean;
  /**
   * Moves to the older page: false when there is none, or while the page a turn asked for is not drawn yet
   * (its own older page is unknown until then, so a second press waits for it).
   */
  older(): boolean;
  /** Back to the first page (a new filter, a list emptied). */
  reset(): void;
  /**
   * Asks for the shown page with its cursor: the answer, or null when a later ask began before it came. A
   * failed newest ask puts the pager back on the page on screen.
   */
  fetch<T>(ask: (cursor: string | null) => Promise<T>): Promise<T | null>;
  /** Once a page is drawn: its `nextCursor` (an older page, or none) is where "Older" goes. */
  update(nextCursor: string | null): void;
  /** Called after each `update` (the buttons follow the drawn page); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

export function cursorPagerModel(): CursorPagerModel {
  const cursors: (string | null)[] = [null];
  let next: string | null = null;
  // The shown page's place, for an ask that fails: the pager goes back to what is on screen.
  let drawn: { cursors: (string | null)[]; next: string | null } = { cursors: [...cursors], next };
  const answers = newestAnswer();
  const drawnPage = listeners();
  const cursor = () => cursors[cursors.length - 1]!;
  return {
    cursor,
    page: () => cursors.length,
    hasNewer: () => cursors.length > 1,
    hasOlder: () => next !== null,
    newer() {
      if (cursors.length === 1) return false;
      cursors.pop();
      next = null;
      return true;
    },
    older() {
      if (!next) return false;
      cursors.push(next);
      next = null;
      return true;
    },
    reset() {
      cursors.splice(1);
      next = null;
    },
    async fetch(ask) {
      const newest = answers.begin();
      try {
        const answer = await ask(cursor());
        return newest() ? answer : null;
      } catch (error) {
        if (newest()) {
          cursors.splice(0, cursors.length, ...drawn.cursors);
          next = drawn.next;
        }
        throw error;
      }
    },
    update(nextCursor) {
      next = nextCursor;
      drawn = { cursors: [...cursors], next };
      drawnPage.emit();
    },
    subscribe: drawnPage.subscribe,
  };
}
