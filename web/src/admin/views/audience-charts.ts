/**
 * The audience charts (uPlot: canvas, local-time axes, a cursor that reads values out): each
 * series over time with the stretches the stream was on air shaded, sized to its container.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from '../../shared/dom';

/** Seconds since the epoch, as uPlot takes time. */
export type OnAir = [from: number, to: number][];

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** Which y axis: the left (default) or the right. */
  scale?: 'left' | 'right';
  bars?: boolean;
  /** How the cursor's readout shows a value. */
  format?: (value: number) => string;
}

export interface ChartSpec {
  /** What the chart shows, for screen readers (the canvas has no text of its own). */
  summary: string;
  /** The time axis: the report's range, in seconds. */
  range: [from: number, to: number];
  times: number[];
  series: ChartSeries[];
  onAir: OnAir;
  left: string;
  right?: string;
}

const HEIGHT = 220;
/** The on-air shading and its edges. */
const ON_AIR_FILL = 'rgba(220, 38, 38, 0.08)';
const ON_AIR_EDGE = 'rgba(220, 38, 38, 0.45)';

/** The reader's time zone, named: axes are in local time and say so. */
export function localZone(): string {
  const part = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName');
  return part?.value ?? 'local time';
}

/** Shades the on-air stretches behind the series, with a line where the stream went on and off. */
function onAirPlugin(onAir: OnAir): uPlot.Plugin {
  return {
    hooks: {
      drawClear: (u) => {
        const { ctx, bbox } = u;
        ctx.save();
        for (const [from, to] of onAir) {
          const x0 = Math.max(bbox.left, u.valToPos(from, 'x', true));
          const x1 = Math.min(bbox.left + bbox.width, u.valToPos(to, 'x', true));
          if (x1 <= x0) continue;
          ctx.fillStyle = ON_AIR_FILL;
          ctx.fillRect(x0, bbox.top, x1 - x0, bbox.height);
          ctx.fillStyle = ON_AIR_EDGE;
          ctx.fillRect(x0, bbox.top, Math.max(1, devicePixelRatio), bbox.height);
          ctx.fillRect(x1 - Math.max(1, devicePixelRatio), bbox.top, Math.max(1, devicePixelRatio), bbox.height);
        }
        ctx.restore();
      },
    },
  };
}

/** A chart in `host`, redrawn to the host's width; `destroy` when the host goes. */
export function drawChart(host: HTMLElement, spec: ChartSpec): { destroy(): void } {
  host.replaceChildren();
  host.setAttribute('role', 'img');
  host.setAttribute('aria-label', spec.summary);
  const width = () => Math.max(240, host.clientWidth);
  const zone = localZone();
  const axisFont = '12px system-ui, sans-serif';
  const options: uPlot.Options = {
    width: width(),
    height: HEIGHT,
    plugins: [onAirPlugin(spec.onAir)],
    cursor: { drag: { x: false, y: false } },
    legend: { live: true },
    scales: { x: { time: true, range: () => spec.range }, left: { auto: true, range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] }, right: { auto: true, range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { label: `Time (${zone})`, font: axisFont, labelFont: axisFont, labelSize: 18 },
      { scale: 'left', label: spec.left, font: axisFont, labelFont: axisFont, labelSize: 18, size: 48 },
      ...(spec.right ? [{ scale: 'right', side: 1 as const, label: spec.right, font: axisFont, labelFont: axisFont, labelSize: 18, size: 48, grid: { show: false } }] : []),
    ],
    series: [
      { label: 'Time', value: (_u, value) => (value === null ? '—' : new Date(value * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })) },
      ...spec.series.map((series) => ({
        label: series.label,
        scale: series.scale ?? 'left',
        stroke: series.color,
        width: 2,
        spanGaps: false,
        ...(series.bars ? { fill: series.color, paths: uPlot.paths.bars!({ size: [0.8, 24] }), points: { show: false } } : {}),
        value: (_u: uPlot, value: number | null) => (value === null ? '—' : series.format ? series.format(value) : String(value)),
      })),
    ],
  };
  const plot = new uPlot(options, [spec.times, ...spec.series.map((series) => series.values)] as uPlot.AlignedData, host);
  const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: HEIGHT }));
  resize.observe(host);
  return {
    destroy() {
      resize.disconnect();
      plot.destroy();
    },
  };
}

/** The legend's key to the shading, beside the charts. */
export function onAirKey(): HTMLElement {
  return h('p', { className: 'hint on-air-key' }, h('span', { className: 'swatch', 'aria-hidden': 'true' }), 'Shaded: the stream was on air.');
}
