/**
 * The printed ticket sheet, as paper shows it: Chromium prints the console's
 * ticket page to PDF at A4 and Letter, poppler renders it (pdftoppm) and reads
 * its words with their positions (pdftotext -bbox). On every page each ticket
 * is a box with its code, its watch link and its QR code inside, nothing
 * printed under the QR code or across the box's border, eight tickets to a
 * page, and every QR code decodes to its ticket's own link.
 */
import { describe, expect, it } from 'vitest';
import { browserStory, shotsAtBothWidths, signIn } from '../support/browser-story';
import { artifacts } from '../../harness/browser';
import { inside, overlaps, readPrintedPdf, type Rect, type Word } from '../support/printed-pdf';
import { writeFile } from 'node:fs/promises';
import { noSeriousAccessibilityFindings } from '../support/axe';

/** Codes as printed: `ABCD-EFGH-JKLM`. */
const PRINTED_CODE = /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/;

describe('web: printed ticket sheet', () => {
  const story = browserStory();

  it('prints each code, link and QR code inside its own ticket, on A4 and Letter', async () => {
    const { system } = story;
    const api = system.urls.api!;
    // A long title, as real shows have: it must not push anything off its ticket.
    const title = 'The Midsummer Night Orchestra plays the complete symphonies, second evening';
    const event = await system.admin('POST', '/api/admin/events', {
      title,
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      endsAt: new Date(Date.now() + 90_000_000).toISOString(),
    });
    const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 10, label: 'print' });
    const codes = new Map<string, string>(tokens.map((token: { code: string }) => [groupCode(token.code), token.code]));

    const admin = await story.adminPage();
    const problems: string[] = [];
    admin.on('pageerror', (error) => problems.push(`uncaught ${error.message}`));
    await admin.goto(`${api}/admin/#/events/${event.id}/tickets`);
    await signIn(admin, '', system.adminPassword);
    await admin.getByRole('heading', { name: 'Print tickets' }).waitFor();
    await expect.poll(() => admin.locator('.ticket').count()).toBe(10);
    await shotsAtBothWidths(admin, 'ticket-sheet');
    await noSeriousAccessibilityFindings(admin, 'ticket sheet');

    const scratch = await admin.context().newPage();
    for (const format of ['A4', 'Letter'] as const) {
      await admin.emulateMedia({ media: 'print' });
      const pdf = await admin.pdf({ format });
      await admin.emulateMedia({ media: 'screen' });
      const pages = await readPrintedPdf(pdf, scratch);
      for (const [index, page] of pages.entries()) await writeFile(`${artifacts}ticket-sheet-${format}-${index + 1}.png`, page.png);

      expect(pages.map((page) => page.boxes.length), `${format}: tickets per page`).toEqual([8, 2]);
      const seen = new Set<string>();
      for (const [index, page] of pages.entries()) {
        const where = (box: Rect) => `${format} page ${index + 1}, ticket at ${Math.round(box.x0)},${Math.round(box.y0)} pt`;
        const sheet = { x0: 0, y0: 0, x1: page.width, y1: page.height };
        for (const box of page.boxes) {
          expect(inside(box, sheet), `${where(box)} lies on the paper`).toBe(true);
          const words = page.words.filter((word) => overlaps(word, box));
          // Nothing crosses the border: every word touching the box lies inside it, clear of the dashes.
          for (const word of words) expect(inside(word, box, 1), `${where(box)}: "${word.text}" crosses the border`).toBe(true);
          const code = words.find((word) => PRINTED_CODE.test(word.text));
          expect(code, `${where(box)}: its code, whole on one line`).toBeDefined();
          const plain = codes.get(code!.text);
          expect(plain, `${where(box)}: ${code!.text} is one of the event's codes`).toBeDefined();
          seen.add(plain!);
          const link = `${api}/?code=${plain}`;
          expect(lineText(words, link), `${where(box)}: the watch link printed in full`).toBe(true);
          const qr = page.qrCodes.find((candidate) => inside(candidate, box));
          expect(qr?.data, `${where(box)}: the QR code decodes to the ticket's link`).toBe(link);
          for (const word of words) expect(overlaps(word, qr!), `${where(box)}: "${word.text}" printed under the QR code`).toBe(false);
          expect(lineText(words, title), `${where(box)}: the event's title`).toBe(true);
        }
      }
      expect(seen.size, `${format}: every code printed once`).toBe(10);
    }
    expect(problems).toEqual([]);
  }, 180_000);
});

function groupCode(code: string): string {
  return code.match(/.{1,4}/g)!.join('-');
}

/** True when `text` is printed in the box's words in reading order (across line breaks). */
function lineText(words: Word[], text: string): boolean {
  const ordered = [...words].sort((a, b) => (Math.abs(a.y0 - b.y0) > 2 ? a.y0 - b.y0 : a.x0 - b.x0));
  const joined = ordered.map((word) => word.text).join('');
  return joined.includes(text.replaceAll(' ', ''));
}
