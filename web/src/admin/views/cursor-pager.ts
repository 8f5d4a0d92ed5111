/**
 * "← Newer" and "Older →" over a listing the API pages with cursors (codes, live sessions, orders): the
 * buttons of a pager model (`models/cursor-pager-model.ts`, where the place and the newest-answer rule live).
 */
import { h } from '../../shared/dom';
import { cursorPagerModel, type CursorPagerModel } from '../models/cursor-pager-model';

export interface CursorPager extends CursorPagerModel {
  element: HTMLElement;
}

/**
 * `key` prefixes the buttons' `data-key` (`<key>-newer`, `<key>-older`); `turn` runs after the cursor
 * moved (it loads the page), with the button pressed; `info`, when given, leads the toolbar. The buttons
 * follow the model's drawn page.
 */
export function cursorPager(
  key: string,
  turn: (button: HTMLButtonElement) => void,
  info?: HTMLElement,
  model: CursorPagerModel = cursorPagerModel(),
): CursorPager {
  const newer = h('button', { type: 'button', className: 'small', 'data-key': `${key}-newer` }, '← Newer');
  const older = h('button', { type: 'button', className: 'small', 'data-key': `${key}-older` }, 'Older →');
  const element = h('div', { className: 'toolbar pager' }, info ?? null, newer, older);
  newer.addEventListener('click', () => {
    if (model.newer()) turn(newer);
  });
  older.addEventListener('click', () => {
    if (model.older()) turn(older);
  });
  model.subscribe(() => {
    newer.hidden = !model.hasNewer();
    older.hidden = !model.hasOlder();
    element.hidden = newer.hidden && older.hidden;
  });
  return { ...model, element };
}
