/** Watch links and their QR codes as the console shows them: the viewer page is on the console's own origin (`/` beside `/admin/`). */
import { watchLink } from '../../../functions/domain/codes/watch-link';
import { qrCodeSvg } from '../shared/qr-code';

export { groupedCode } from '../../../functions/domain/codes/watch-link';

export function consoleWatchLink(code: string): string {
  return watchLink(location.origin, code);
}

/** A QR code (SVG) of `text` with the console's `qr` class. */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const svg = qrCodeSvg(text, label);
  svg.classList.add('qr');
  return svg;
}
