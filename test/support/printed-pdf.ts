/**
 * What a printed page really shows: a PDF from Chromium's `page.pdf()`,
 * rendered to PNG by poppler's `pdftoppm` and read back by `pdftotext -bbox`,
 * so a test checks where words, boxes and QR codes land on paper, not what
 * the DOM intends. All positions are in PDF points from the page's top left.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';

const run = promisify(execFile);
const jsQrPath = createRequire(import.meta.url).resolve('jsqr/dist/jsQR.js');
/** Rendering resolution: 2 pixels per point. */
const DPI = 144;
const PX_PER_PT = DPI / 72;

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Word extends Rect {
  text: string;
}

export interface PrintedPage {
  width: number;
  height: number;
  words: Word[];
  /** Rectangles drawn with a grey (dashed or solid) outline: the tickets' borders. */
  boxes: Rect[];
  /** Each QR code found inside a box, decoded, with the square its modules cover. */
  qrCodes: (Rect & { data: string })[];
  /** The page as pdftoppm rendered it. */
  png: Buffer;
}

/** `pdftotext -bbox`: one `<page>` per page, one `<word>` with its box per word. */
function parseBbox(xhtml: string): { width: number; height: number; words: Word[] }[] {
  const pages = [...xhtml.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)];
  const unescape = (text: string) =>
    text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
  return pages.map(([, width, height, body]) => ({
    width: Number(width),
    height: Number(height),
    words: [...body!.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map(
      ([, x0, y0, x1, y1, text]) => ({ text: unescape(text!), x0: Number(x0), y0: Number(y0), x1: Number(x1), y1: Number(y1) }),
    ),
  }));
}

/**
 * Reads a PDF the way paper shows it. `browserPage` is a scratch page whose
 * canvas reads the rendered pixels (it is navigated away from what it showed).
 */
export async function readPrintedPdf(pdf: Buffer, browserPage: Page): Promise<PrintedPage[]> {
  const dir = await mkdtemp(join(tmpdir(), 'printed-pdf-'));
  try {
    const file = join(dir, 'print.pdf');
    await writeFile(file, pdf);
    await run('pdftoppm', ['-r', String(DPI), '-png', file, join(dir, 'page')]);
    await run('pdftotext', ['-bbox', file, join(dir, 'words.html')]);
    const texts = parseBbox(await readFile(join(dir, 'words.html'), 'utf8'));
    const pngs = (await readdir(dir)).filter((name) => name.startsWith('page') && name.endsWith('.png')).sort();
    if (pngs.length !== texts.length) throw new Error(`pdftoppm made ${pngs.length} pages, pdftotext read ${texts.length}`);
    await browserPage.setContent('<!doctype html><title>printed page</title>');
    await browserPage.addScriptTag({ path: jsQrPath });
    const pages: PrintedPage[] = [];
    for (const [index, name] of pngs.entries()) {
      const png = await readFile(join(dir, name));
      const found = await browserPage.evaluate(findBoxesAndQrCodes, `data:image/png;base64,${png.toString('base64')}`);
      const toPt = (rect: Rect) => ({ x0: rect.x0 / PX_PER_PT, y0: rect.y0 / PX_PER_PT, x1: rect.x1 / PX_PER_PT, y1: rect.y1 / PX_PER_PT });
      pages.push({
        ...texts[index]!,
        boxes: found.boxes.map(toPt),
        qrCodes: found.qrCodes.map((qr) => ({ ...toPt(qr), data: qr.data })),
        png,
      });
    }
    return pages;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs in the browser. A box is a pair of horizontal grey rules of the same
 * extent (at least 25 mm long; dashed, or crossed by what was printed over
 * them), joined by grey rules on both sides. Inside each box jsQR looks for a QR code.
 */
async function findBoxesAndQrCodes(dataUrl: string) {
  const image = new Image();
  image.src = dataUrl;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  context.drawImage(image, 0, 0);
  const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
  const at = (x: number, y: number) => (y * width + x) * 4;
  const grey = (x: number, y: number) => {
    const i = at(x, y);
    const max = Math.max(data[i]!, data[i + 1]!, data[i + 2]!);
    const min = Math.min(data[i]!, data[i + 1]!, data[i + 2]!);
    return max - min < 24 && max < 225 && min > 70;
  };
  const ink = (x: number, y: number) => {
    const i = at(x, y);
    return data[i]! + data[i + 1]! + data[i + 2]! < 180;
  };
  const MIN_RULE = Math.round((25 / 25.4) * 144);
  const MAX_GAP = 14;
  // Runs of grey along a line, bridging dash gaps and ink that crosses the rule; mostly grey, or it is text.
  const runs = (length: number, isGrey: (i: number) => boolean, isInk: (i: number) => boolean) => {
    const found: [number, number][] = [];
    let start = -1;
    let last = -1;
    let greyCount = 0;
    const close = () => {
      if (start >= 0 && last - start >= MIN_RULE && greyCount / (last - start + 1) >= 0.35) found.push([start, last]);
      start = -1;
      greyCount = 0;
    };
    for (let i = 0; i < length; i++) {
      const isRulePixel = isGrey(i);
      if (!isRulePixel && !isInk(i)) {
        if (start >= 0 && i - last > MAX_GAP) close();
        continue;
      }
      if (start < 0) start = i;
      if (isRulePixel) greyCount++;
      last = i;
    }
    close();
    return found;
  };
  const horizontal: { y: number; x0: number; x1: number }[] = [];
  for (let y = 0; y < height; y++) {
    for (const [x0, x1] of runs(width, (x) => grey(x, y), (x) => ink(x, y))) {
      // A rule two pixels thick is one rule.
      const previous = horizontal.find((rule) => Math.abs(rule.y - y) <= 3 && Math.abs(rule.x0 - x0) <= 6 && Math.abs(rule.x1 - x1) <= 6);
      if (!previous) horizontal.push({ y, x0, x1 });
    }
  }
  const verticalAt = (x: number, y0: number, y1: number) => {
    for (let dx = -4; dx <= 4; dx++) {
      const column = x + dx;
      if (column < 0 || column >= width) continue;
      const found = runs(y1 - y0 + 1, (i) => grey(column, y0 + i), (i) => ink(column, y0 + i));
      if (found.some(([a, b]) => a <= 8 && b >= y1 - y0 - 8)) return true;
    }
    return false;
  };
  const boxes: { x0: number; y0: number; x1: number; y1: number }[] = [];
  const used = new Set<number>();
  horizontal.forEach((top, t) => {
    if (used.has(t)) return;
    const b = horizontal.findIndex(
      (rule, i) => i > t && !used.has(i) && rule.y - top.y > 40 && Math.abs(rule.x0 - top.x0) <= 6 && Math.abs(rule.x1 - top.x1) <= 6,
    );
    if (b < 0) return;
    const bottom = horizontal[b]!;
    if (!verticalAt(top.x0, top.y, bottom.y) || !verticalAt(top.x1, top.y, bottom.y)) return;
    used.add(t);
    used.add(b);
    boxes.push({ x0: top.x0, y0: top.y, x1: top.x1, y1: bottom.y });
  });
  type Point = { x: number; y: number };
  type Decoded = { data: string; location: Record<'topLeftCorner' | 'topRightCorner' | 'bottomLeftCorner' | 'bottomRightCorner', Point> };
  const jsQR = (window as unknown as { jsQR: (d: Uint8ClampedArray, w: number, h: number) => Decoded | null }).jsQR;
  const qrCodes: { data: string; x0: number; y0: number; x1: number; y1: number }[] = [];
  for (const box of boxes) {
    const w = box.x1 - box.x0;
    const h = box.y1 - box.y0;
    const crop = context.getImageData(box.x0, box.y0, w, h);
    const decoded = jsQR(crop.data, w, h);
    if (!decoded) continue;
    const corners = Object.values(decoded.location);
    qrCodes.push({
      data: decoded.data,
      x0: box.x0 + Math.min(...corners.map((p) => p.x)),
      y0: box.y0 + Math.min(...corners.map((p) => p.y)),
      x1: box.x0 + Math.max(...corners.map((p) => p.x)),
      y1: box.y0 + Math.max(...corners.map((p) => p.y)),
    });
  }
  return { boxes, qrCodes };
}

/** True when `inner` lies inside `outer`, `inset` points clear of its edges. */
export function inside(inner: Rect, outer: Rect, inset = 0): boolean {
  return inner.x0 >= outer.x0 + inset && inner.y0 >= outer.y0 + inset && inner.x1 <= outer.x1 - inset && inner.y1 <= outer.y1 - inset;
}

export function overlaps(a: Rect, b: Rect): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}
