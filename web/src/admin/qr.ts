/**
 * QR codes as inline SVG, made in the browser by the `qrcode` library (no
 * network, no canvas): crisp at any size on screen and in print.
 */
import { create } from 'qrcode';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The quiet zone the QR standard asks for, in modules. */
const QUIET = 4;

/** An SVG QR code of `text`, with an accessible name. Error correction M survives a crease or a smudge. */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size + QUIET * 2;
  let path = '';
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.get(row, col)) path += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
    }
  }
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.classList.add('qr');
  const background = document.createElementNS(SVG_NS, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  const dark = document.createElementNS(SVG_NS, 'path');
  dark.setAttribute('d', path);
  dark.setAttribute('fill', '#000');
  svg.append(background, dark);
  return svg;
}
