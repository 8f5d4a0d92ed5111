import type { Page } from 'playwright-core';

/** Tables wider than their box, and buttons in a table outside it (cut off, or only reached by scrolling). */
export function tablesCutOff(page: Page): Promise<string[]> {
  return page.locator('.table-wrap').evaluateAll((wraps) =>
    wraps.flatMap((wrap) => {
      const box = wrap.getBoundingClientRect();
      const label = wrap.getAttribute('aria-label');
      const wide = wrap.scrollWidth > wrap.clientWidth + 1 ? [`${label}: ${wrap.scrollWidth} px in ${wrap.clientWidth} px`] : [];
      const cut = [...wrap.querySelectorAll('button, a.button')]
        .filter((button) => (button as HTMLElement).offsetParent !== null)
        .filter((button) => button.getBoundingClientRect().right > box.right + 1)
        .map((button) => `${label}: “${button.textContent}” cut off`);
      return [...wide, ...cut];
    }),
  );
}
