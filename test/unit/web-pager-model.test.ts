/**
 * The newest-answer rule and the cursor pager's place, without a browser: an answer to a request older than
 * the newest is dropped, and a failed page ask puts the pager back on the page on screen.
 */
import { describe, expect, it } from 'vitest';
import { cursorPagerModel } from '../../web/src/admin/models/cursor-pager-model';
import { newestAnswer } from '../../web/src/admin/models/newest-answer';

/** A request whose answer the test gives when it chooses. */
function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('newest answer', () => {
  it('drops the answer to the older of two requests when the newer answers first', async () => {
    const answers = newestAnswer();
    const shown: string[] = [];
    const ask = async (answer: Promise<string>) => {
      const newest = answers.begin();
      const value = await answer;
      if (newest()) shown.push(value);
    };
    const first = held<string>();
    const second = held<string>();
    const asking = [ask(first.promise), ask(second.promise)];
    second.resolve('second');
    first.resolve('first');
    await Promise.all(asking);
    expect(shown).toEqual(['second']);
  });

  it('drops a poll once a request began after it, but a poll drops nothing', () => {
    const answers = newestAnswer();
    const refresh = answers.begin();
    const poll = answers.follow();
    expect(refresh()).toBe(true);
    expect(poll()).toBe(true);
    const later = answers.begin();
    expect(poll()).toBe(false);
    expect(refresh()).toBe(false);
    expect(later()).toBe(true);
  });
});

describe('cursor pager model', () => {
  it('keeps the cursors of the pages before the shown one, so "Newer" goes back exactly', () => {
    const pager = cursorPagerModel();
    expect([pager.cursor(), pager.page(), pager.hasNewer(), pager.hasOlder()]).toEqual([null, 1, false, false]);
    expect(pager.older()).toBe(false);
    pager.update('c2');
    expect(pager.older()).toBe(true);
    expect([pager.cursor(), pager.page()]).toEqual(['c2', 2]);
    // Until the asked-for page is drawn its own older page is unknown: a second press waits.
    expect(pager.older()).toBe(false);
    pager.update('c3');
    pager.older();
    pager.update(null);
    expect([pager.cursor(), pager.page(), pager.hasOlder()]).toEqual(['c3', 3, false]);
    expect(pager.newer()).toBe(true);
    expect(pager.cursor()).toBe('c2');
    pager.reset();
    expect([pager.cursor(), pager.page(), pager.newer()]).toEqual([null, 1, false]);
  });

  it('drops a refresh of page 1 that answers after the page turned to page 2', async () => {
    const pager = cursorPagerModel();
    pager.update('c2');
    const refresh = held<string>();
    const turn = held<string>();
    const asked: (string | null)[] = [];
    const refreshed = pager.fetch((cursor) => (asked.push(cursor), refresh.promise));
    pager.older();
    const turned = pager.fetch((cursor) => (asked.push(cursor), turn.promise));
    expect(asked).toEqual([null, 'c2']);
    turn.resolve('page 2');
    expect(await turned).toBe('page 2');
    refresh.resolve('page 1');
    expect(await refreshed).toBeNull();
  });

  it('goes back to the drawn page when the newest ask fails, not when an older one does', async () => {
    const pager = cursorPagerModel();
    pager.update('c2');
    pager.older();
    await expect(pager.fetch(() => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect([pager.cursor(), pager.page(), pager.hasOlder()]).toEqual([null, 1, true]);

    const stale = held<string>();
    const asking = pager.fetch(() => stale.promise);
    pager.older();
    const newest = pager.fetch(async () => 'page 2');
    expect(await newest).toBe('page 2');
    pager.update(null);
    stale.reject(new Error('late failure'));
    await expect(asking).rejects.toThrow('late failure');
    expect([pager.cursor(), pager.page()]).toEqual(['c2', 2]);
  });

  it('tells its subscribers when a page is drawn', () => {
    const pager = cursorPagerModel();
    let drawn = 0;
    const stop = pager.subscribe(() => (drawn += 1));
    pager.update(null);
    stop();
    pager.update(null);
    expect(drawn).toBe(1);
  });
});
