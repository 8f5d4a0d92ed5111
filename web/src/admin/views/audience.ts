/**
 * The event's audience, live and after: viewers over time, stall ratio and start-up time, errors
 * (over time, and by type in a table), each chart with the stretches the stream was on air shaded; totals beside them. Redrawn every minute
 * while shown (the API's series grows by one settled minute at a time).
 */
import { h } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type AudienceReport } from '../api';
import { plural } from '../labels';
import { act } from '../ui';
import { drawChart, localZone, onAirKey, type OnAir } from './audience-charts';

export const AUDIENCE_REFRESH_MS = 60_000;

/** The on-air stretches of the report's range, in seconds. */
export function onAirStretches(report: Pick<AudienceReport, 'from' | 'to' | 'air'>): OnAir {
  const from = Date.parse(report.from) / 1000;
  const to = Date.parse(report.to) / 1000;
  const stretches: OnAir = [];
  let start: number | null = report.air.onAirAtStart ? from : null;
  for (const change of report.air.changes) {
    const at = Date.parse(change.at) / 1000;
    if (change.onAir && start === null) start = at;
    else if (!change.onAir && start !== null) {
      stretches.push([start, at]);
      start = null;
    }
  }
  if (start !== null) stretches.push([start, to]);
  return stretches;
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The totals a person reads first: peak and when, tickets used, watch hours, minutes per viewer. */
export function audienceTotals(report: AudienceReport): { label: string; value: string }[] {
  const { totals } = report;
  const perViewer = totals.uniqueCodes > 0 ? totals.watchMinutes / totals.uniqueCodes : 0;
  return [
    { label: 'Peak viewers', value: totals.peakViewers > 0 ? `${totals.peakViewers} at ${formatDateTime(totals.peakAt)}` : '0' },
    { label: 'Tickets used', value: String(totals.uniqueCodes) },
    { label: 'Watch hours', value: (totals.watchMinutes / 60).toFixed(1) },
    { label: 'Minutes per viewer', value: perViewer.toFixed(1) },
  ];
}

/** The errors by type, most frequent first, each with its share of all errors ("12 (80 %)"). */
export function errorTypeRows(report: Pick<AudienceReport, 'totals'>): { name: string; count: string }[] {
  const all = report.totals.errorTypes.reduce((sum, type) => sum + type.count, 0);
  return report.totals.errorTypes.map(({ name, count }) => ({ name, count: `${count.toLocaleString()} (${Math.round((count / all) * 100)} %)` }));
}

/** The "Player errors by type" table in `container`, hidden while there are none. */
function showErrorTypes(container: HTMLElement, report: AudienceReport): void {
  const rows = errorTypeRows(report);
  container.hidden = rows.length === 0;
  container.replaceChildren();
  if (rows.length === 0) return;
  container.append(
    h(
      'table',
      { className: 'error-types' },
      h('caption', null, 'Player errors by type'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Error'), h('th', { scope: 'col' }, 'Count'))),
      h('tbody', null, rows.map((row) => h('tr', null, h('td', null, h('code', null, row.name)), h('td', null, row.count)))),
    ),
  );
}

export function audiencePanel(eventId: string): { element: HTMLElement; load: () => Promise<void> } {
  const totals = h('dl', { className: 'stats audience-totals', 'aria-label': 'Audience totals' });
  const mix = h('p', { className: 'hint rendition-mix' });
  const note = h('p', { className: 'hint' });
  const hosts = { viewers: h('div', { className: 'chart' }), quality: h('div', { className: 'chart' }), errors: h('div', { className: 'chart' }) };
  const errorTypes = h('div', { className: 'table-wrap error-types-wrap' });
  let charts: { destroy(): void }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const draw = (report: AudienceReport) => {
    totals.replaceChildren(...audienceTotals(report).map(({ label, value }) => h('div', { className: 'stat' }, h('dt', null, label), h('dd', null, value))));
    const watched = report.totals.renditions.reduce((sum, r) => sum + r.watchMinutes, 0);
    mix.textContent =
      watched > 0
        ? `Watch time by bitrate: ${report.totals.renditions.map((r) => `${r.kbps} kbps ${Math.round((r.watchMinutes / watched) * 100)} %`).join(', ')}.`
        : '';
    note.textContent =
      report.series.length === 0
        ? 'Nothing to show yet: the charts begin with the first viewers (or the stream on air) and fill a minute at a time.'
        : `Every ${report.step / 60} min, up to ${formatDateTime(report.to)}; the last minute appears once every viewer in it has checked in.`;
    showErrorTypes(errorTypes, report);
    for (const chart of charts) chart.destroy();
    // Each point sums its step: drawn at the step's middle, so it lines up with the on-air marks' exact times.
    const times = report.series.map((point) => Date.parse(point.at) / 1000 + report.step / 2);
    const onAir = onAirStretches(report);
    const range: [number, number] = [Date.parse(report.from) / 1000, Date.parse(report.to) / 1000];
    const peak = report.totals.peakViewers;
    const worstStall = Math.max(0, ...report.series.map((point) => point.stallRatio ?? 0));
    const errors = report.series.reduce((sum, point) => sum + point.errors, 0);
    charts = [
      drawChart(hosts.viewers, {
        summary: `Viewers over time: peak ${plural(peak, 'viewer')}${report.totals.peakAt ? ` at ${formatDateTime(report.totals.peakAt)}` : ''}.`,
        times,
        range,
        onAir,
        left: 'Viewers',
        series: [
          { label: 'Viewers', values: report.series.map((point) => point.viewers), color: '#2563eb' },
          { label: 'Joined', values: report.series.map((point) => point.joins), color: '#16a34a' },
          { label: 'Left', values: report.series.map((point) => point.leaves), color: '#9ca3af' },
        ],
      }),
      drawChart(hosts.quality, {
        summary: `Stall ratio and start-up time over time: worst stall ratio ${percent(worstStall)}.`,
        times,
        range,
        onAir,
        left: 'Stalled (%)',
        right: 'Start-up (s)',
        series: [
          { label: 'Stalled', values: report.series.map((point) => (point.stallRatio === null ? null : point.stallRatio * 100)), color: '#dc2626', format: (v) => `${v.toFixed(1)} %` },
          { label: 'Start-up p50', values: report.series.map((point) => (point.startupMsP50 === null ? null : point.startupMsP50 / 1000)), color: '#7c3aed', scale: 'right', format: (v) => seconds(v * 1000) },
          { label: 'Start-up p90', values: report.series.map((point) => (point.startupMsP90 === null ? null : point.startupMsP90 / 1000)), color: '#c084fc', scale: 'right', format: (v) => seconds(v * 1000) },
        ],
      }),
      drawChart(hosts.errors, {
        summary: `Player errors over time: ${plural(errors, 'error')} in all.`,
        times,
        range,
        onAir,
        left: 'Errors',
        series: [{ label: 'Errors', values: report.series.map((point) => point.errors), color: '#f59e0b', bars: true }],
      }),
    ];
  };

  const load = async () => {
    clearTimeout(timer);
    const report = await adminApi.audience(eventId);
    if (!element.isConnected) return;
    draw(report);
    schedule();
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!element.isConnected) return charts.forEach((chart) => chart.destroy());
      if (document.hidden) return schedule();
      void act(null, load).finally(schedule);
    }, AUDIENCE_REFRESH_MS);
  };

  const zone = localZone();
  const figure = (title: string, host: HTMLElement) =>
    h('figure', { className: 'chart-figure' }, h('figcaption', null, title, h('span', { className: 'muted' }, ` · times in ${zone}`)), host);
  const element = h(
    'section',
    { className: 'card panel audience-panel', 'aria-labelledby': 'audience-title' },
    h('h2', { id: 'audience-title', tabindex: -1 }, 'Audience'),
    totals,
    mix,
    figure('Viewers', hosts.viewers),
    figure('Stalls and start-up time', hosts.quality),
    figure('Player errors', hosts.errors),
    errorTypes,
    onAirKey(),
    note,
  );
  return { element, load };
}
