/**
 * One event: its state and actions, figures, OBS settings, media cache, who
 * is watching now, the audience over time, and the access codes panel.
 * Sections re-render in place after each action. The event and its actions
 * are the model's (`models/event-detail-model.ts`); this draws it.
 */
import { h, replaceChildren, type Child } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type EventDetail, type EventTransition, type JobView } from '../api';
import { EVENT_STATUS_LABELS, EVENT_STATUS_TONES, formatCount, plural } from '../labels';
import { cancelledLine, deleteMessage } from '../models/box-office';
import { hrefOf } from '../router';
import { can } from '../session';
import { act, badge, confirmAction, copyFromButton, notify, rerender, tableWrap } from '../ui';
import { srtSettings } from './srt-settings';
import { traceLeakPanel } from './trace-leak';
import { ALL_PARTS, eventDetailModel, type EventDetailModel, type EventParts } from '../models/event-detail-model';
import { audiencePanel } from './audience';
import { askCancelReason, salesPanel } from './box-office';
import { showDeletion } from './background-deletions';
import { auditPanel } from './audit-log';
import { codesPanel } from './codes';
import { previewPanel } from './preview';
import { ordersPanel } from './orders';
import { sessionsPanel } from './sessions';
import { geoRuleText } from '../models/geo-picker-model';
import { backupKeyField, encoderPanel } from './encoders';
import type { EncoderRole } from '../models/encoders-model';

export async function renderEventDetail(
  main: HTMLElement,
  eventId: string,
  current: () => boolean,
  navigate: (href: string) => void,
): Promise<void> {
  replaceChildren(main, h('h1', { tabindex: -1 }, 'Event'), h('p', { className: 'muted' }, 'Loading…'));
  const event = await adminApi.getEvent(eventId);
  if (!current()) return;
  const model = eventDetailModel({ eventId, api: adminApi, event, current });
  // Every change made on this page is in the event's audit log at once.
  const audit = auditPanel(eventId);
  // A change made in a panel (codes, a job's end such as a cancelled show's refunds): the figures, and the orders.
  const changed = () => void Promise.all([actions.refresh(), orders && act(null, orders.load)]);
  // Its list re-read brings the figures above it along (codes, sales).
  const codes = can('codes:read') ? codesPanel(eventId, changed, { refreshFigures: () => act(null, model.refreshFigures), codeCount: () => model.event().stats.tokens }) : null;
  const actions = eventActions(model, audit.load, navigate, (job) => codes?.showJob(job));
  const parts = eventParts(model, actions);
  model.subscribe((drawn) => {
    parts.draw(drawn);
    // The pager's "of about" follows the code count.
    if (drawn.stats) codes?.figuresChanged();
  });
  pollWhileShown(model, current);

  // Buyers' emails and their codes: box office and above (codes:manage), as the API.
  // A refund revokes the order's codes and moves the sale's figures.
  const orders = can('codes:manage') ? ordersPanel(eventId, () => void Promise.all([actions.refresh(), codes && act(null, codes.load)])) : null;
  const sessions = can('codes:read') ? sessionsPanel(eventId, changed, () => void act(null, model.refreshFigures)) : null;
  // Every role that sees the event sees its audience: the show's health is the stream tech's business too.
  const audience = audiencePanel(eventId);
  // Tracing names tickets: the codes managers' business, as the API's trace route.
  const trace = can('codes:manage') ? traceLeakPanel(model.event(), location.origin) : null;
  replaceChildren(
    main,
    h('p', null, h('a', { href: hrefOf({ view: 'dashboard' }) }, '← All events')),
    parts.head,
    parts.figures,
    h('div', { className: 'obs-preview' }, parts.obs, can('stream:manage') && previewPanel(eventId, event.status)),
    parts.encoder,
    sessions?.element,
    audience.element,
    codes?.element,
    orders?.element,
    trace?.element,
    audit.element,
  );
  parts.draw(ALL_PARTS);
  await Promise.all([codes?.load(), sessions?.load(), orders?.load(), audit.load(), act(null, audience.load), trace?.load()]);
}

/** The page's parts drawn from the model: `draw` redraws those named. */
function eventParts(model: EventDetailModel, actions: Actions) {
  const head = h('div');
  const figures = h('div');
  const encoder = h('section', { className: 'card panel', 'aria-labelledby': 'encoder-title' });
  // A form only so that the masked stream key field sits in one (browsers expect that of password fields).
  const obs = h('form', { className: 'card panel', 'aria-labelledby': 'obs-title', onsubmit: (e: Event) => e.preventDefault() });
  obs.hidden = model.event().ingest === null;
  encoder.hidden = model.event().ingest === null;
  const draw = (parts: EventParts) => {
    const event = model.event();
    if (parts.header) rerender(head, () => header(event, actions));
    if (parts.stats) rerender(figures, () => [stats(event), salesPanel(event)]);
    if (parts.obs) rerender(obs, () => obsSettings(event, actions));
    if (parts.encoder) rerender(encoder, () => [...encoderReport(event), ...encoderPanel(event, actions.switchOnAir)]);
  };
  return { head, figures, encoder, obs, draw };
}

/**
 * On-air state, figures and the encoder report change while the page is open: the page reads the event every
 * `EVENT_REFRESH_MS` while it is shown and visible.
 */
function pollWhileShown(model: EventDetailModel, current: () => boolean): void {
  const poll = setInterval(() => {
    if (!current()) return clearInterval(poll);
    if (document.hidden) return;
    void model.poll().catch(() => undefined);
  }, EVENT_REFRESH_MS);
}

/** The page's actions: each confirms where it must, calls the model, tells, and reads the event again. */
function eventActions(
  model: EventDetailModel,
  loadAudit: () => Promise<void>,
  navigate: (href: string) => void,
  showJob: (job: JobView) => void,
): Actions {
  const refresh = async () => {
    if (await act(null, model.refresh)) await act(null, loadAudit);
  };
  return {
    async transition(button, transition) {
      const done = await act(button, () => model.transition(transition));
      if (!done) return;
      notify(TRANSITION_NOTICES[transition]);
      await refresh();
    },
    async remove(button) {
      const { title } = model.event();
      // What it holds, read now: the dialog's figures are those of the moment it opens.
      // The button stays enabled meanwhile: disabled, it would lose focus, which the dialog gives back to it.
      const event = (await act(null, async () => (await model.refreshFigures(), model.event()))) ?? model.event();
      const sure = await confirmAction({
        title: `Delete “${title}”?`,
        message: deleteMessage(event),
        confirmLabel: 'Delete event',
        danger: true,
      });
      if (!sure) return;
      const done = await act(button, model.remove);
      if (!done) return;
      if (done.job) {
        showDeletion(done.job, title);
        notify(`Event “${title}” deleted. Its ${plural(done.job.total, 'code')} are being deleted in the background.`);
      } else notify(`Event “${title}” deleted.`);
      navigate(hrefOf({ view: 'dashboard' }));
    },
    async cancel(button) {
      const reason = await askCancelReason(model.event());
      if (reason === null) return;
      const job = await act(button, () => model.cancel(reason));
      if (!job) return;
      showJob(job);
      notify(`“${model.event().title}” is cancelled: off sale now; refunds and emails go out in the background.`);
      await refresh();
    },
    async rotateKey(button) {
      const sure = await confirmAction({
        title: 'Create a new stream key?',
        message: 'The current key stops working: OBS needs the new one before it can stream again.',
        confirmLabel: 'New stream key',
        danger: true,
      });
      if (!sure) return;
      const done = await act(button, model.rotateKey);
      if (!done) return;
      notify('New stream key created. Update OBS before going live.');
      await refresh();
    },
    async clearCache(button) {
      const sure = await confirmAction({
        title: 'Clear cached media?',
        message: 'Stored video segments of this event are removed from the media cache. Viewers fetch fresh ones.',
        confirmLabel: 'Clear cache',
      });
      if (!sure) return;
      const done = await act(button, model.clearCache);
      if (!done) return;
      notify('Media cache cleared.');
      await act(null, loadAudit);
    },
    async switchOnAir(button, role) {
      const done = await act(button, () => model.switchOnAir(role));
      if (!done) return;
      notify(`Asked the ingest to put the ${role} on air: viewers switch within a few seconds.`);
      await refresh();
    },
    refresh,
  };
}

interface Actions {
  transition(button: HTMLButtonElement, transition: EventTransition): Promise<void>;
  remove(button: HTMLButtonElement): Promise<void>;
  cancel(button: HTMLButtonElement): Promise<void>;
  rotateKey(button: HTMLButtonElement): Promise<void>;
  clearCache(button: HTMLButtonElement): Promise<void>;
  switchOnAir(button: HTMLButtonElement, role: EncoderRole): Promise<void>;
  /** Reads the event again after a change made elsewhere on the page, and its audit log. */
  refresh(): Promise<void>;
}

const TRANSITION_NOTICES: Record<EventTransition, string> = {
  activate: 'Event activated: its codes work again.',
  deactivate: 'Event deactivated: all its codes stop working.',
  archive: 'Event archived.',
  unarchive: 'Event restored from the archive.',
};

/** How often an open event page re-reads the event (status, figures, encoder report). */
const EVENT_REFRESH_MS = 10_000;

function header(event: EventDetail, actions: Actions): HTMLElement {
  const button = (key: string, label: string, onClick: (b: HTMLButtonElement) => void, className = '') => {
    const element = h('button', { type: 'button', className, 'data-key': key }, label);
    element.addEventListener('click', () => onClick(element));
    return element;
  };
  return h(
    'div',
    { className: 'event-header' },
    h('h1', { tabindex: -1 }, event.title),
    h(
      'p',
      { className: 'badges' },
      badge(EVENT_STATUS_LABELS[event.status] ?? event.status, EVENT_STATUS_TONES[event.status] ?? 'muted'),
      event.isActive ? badge('Active', 'ok') : badge('Inactive', 'warn'),
      event.isArchived && badge('Archived', 'muted'),
      event.cancelled && badge('Cancelled', 'danger'),
    ),
    event.cancelled && h('p', { className: 'callout warn', 'data-key': 'cancelled' }, cancelledLine(event.cancelled)),
    h(
      'p',
      { className: 'muted' },
      `${formatDateTime(event.startsAt)} – ${formatDateTime(event.endsAt)} · codes work for ${event.accessWindowHours} h`,
      devicesLine(event.devicesPerCode),
      event.watermark && ' · forensic watermark on',
    ),
    h('p', { className: 'muted', 'data-key': 'geo' }, `Countries: ${geoRuleText(event.geo)}`),
    event.description && h('p', { className: 'description' }, event.description),
    can('events:edit') &&
      h(
        'div',
        { className: 'toolbar', role: 'group', 'aria-label': 'Event actions' },
        h('a', { className: 'button', href: hrefOf({ view: 'edit-event', id: event.id }), 'data-key': 'edit' }, 'Edit'),
        event.isActive
          ? button('active', 'Deactivate', (b) => void actions.transition(b, 'deactivate'))
          : button('active', 'Activate', (b) => void actions.transition(b, 'activate')),
        event.isArchived
          ? button('archived', 'Unarchive', (b) => void actions.transition(b, 'unarchive'))
          : button('archived', 'Archive', (b) => void actions.transition(b, 'archive')),
        // Only an API with the box office says whether the show is cancelled (null: not).
        event.cancelled === null && button('cancel-show', 'Cancel show', (b) => void actions.cancel(b), 'danger'),
        button('delete', 'Delete', (b) => void actions.remove(b), 'danger'),
      ),
  );
}

function stats(event: EventDetail): HTMLElement {
  const item = (label: string, value: number) => h('div', { className: 'stat' }, h('dt', null, label), h('dd', null, formatCount(value)));
  return h(
    'dl',
    { className: 'stats', 'aria-label': 'Figures' },
    item('Codes', event.stats.tokens),
    item('Redeemed', event.stats.redeemed),
    item('Revoked', event.stats.revoked),
    item('Watching now', event.stats.activeViewers),
  );
}

/** Only roles that run the stream get the stream key (the API sends `ingest: null` to the others). */
function obsSettings(event: EventDetail, actions: Actions): Child[] {
  const ingest = event.ingest;
  if (!ingest) return [];
  const copyField = (id: string, label: string, value: string, secret: boolean) => {
    const input = h('input', { id, type: secret ? 'password' : 'text', readonly: true, value, spellcheck: 'false', className: 'mono' });
    const copy = h('button', { type: 'button', className: 'small', 'data-key': `copy-${id}`, 'aria-label': `Copy ${label}` }, 'Copy');
    copy.addEventListener('click', () => void copyFromButton(copy, value, label));
    const controls: HTMLElement[] = [input];
    if (secret) {
      const show = h('button', { type: 'button', className: 'small', 'aria-pressed': 'false', 'data-key': `show-${id}`, 'aria-label': `Show ${label}` }, 'Show');
      show.addEventListener('click', () => {
        const visible = input.type === 'password';
        input.type = visible ? 'text' : 'password';
        show.setAttribute('aria-pressed', String(visible));
        show.textContent = visible ? 'Hide' : 'Show';
      });
      controls.push(show);
    }
    controls.push(copy);
    return h('div', { className: 'field' }, h('label', { for: id }, label), h('div', { className: 'copy-row' }, controls));
  };
  const rotate = h('button', { type: 'button', 'data-key': 'rotate' }, 'New stream key');
  rotate.addEventListener('click', () => void actions.rotateKey(rotate));
  const clear = h('button', { type: 'button', 'data-key': 'clear-cache' }, 'Clear media cache');
  clear.addEventListener('click', () => void actions.clearCache(clear));
  return [
    h('h2', { id: 'obs-title', tabindex: -1 }, 'OBS settings'),
    h('p', { className: 'hint' }, 'In OBS: Settings → Stream → Service “Custom…”, then paste these two values.'),
    copyField('obs-server', 'Server', ingest.server, false),
    copyField('obs-key', 'Stream key', ingest.streamKey, true),
    ...srtSettings(ingest.srt, copyField),
    backupKeyField(event, copyField),
    h('h3', null, 'Output'),
    h(
      'p',
      { className: 'hint' },
      'In OBS: Settings → Output → Output Mode “Advanced”, tab Streaming (Simple mode has no keyframe setting and sends a keyframe only every 8 s or so: the ingest then has to re-encode the video, or, if it only copies, viewers fall about 20 s behind):',
    ),
    h(
      'ul',
      { className: 'obs-output', 'data-key': 'obs-output' },
      h('li', null, h('strong', null, 'Keyframe Interval'), ` ${ingest.keyframeIntervalSeconds} s`),
      h('li', null, h('strong', null, 'Rate Control'), ' CBR'),
      h('li', null, h('strong', null, 'Profile'), ' high (or main)'),
    ),
    h('div', { className: 'toolbar' }, rotate, clear),
  ];
}

const REFUSAL_LABELS: Record<string, string> = {
  'no-key': 'No key',
  'wrong-key': 'Wrong key',
  'rotated-key': 'Old (rotated) key',
  'event-inactive': 'Event inactive',
  'already-publishing': 'Already publishing elsewhere',
};

/** What the ingest saw of the encoder: measured video (and a warning) and refused publish attempts. */
function encoderReport(event: EventDetail): Child[] {
  if (!event.ingest) return [];
  const { video, keyframeWarning, refusals } = event.ingest;
  return [
    h('h2', { id: 'encoder-title', tabindex: -1 }, 'Encoders'),
    keyframeWarning ? h('p', { className: 'callout warn', role: 'status', 'data-key': 'keyframe-warning' }, keyframeWarning) : null,
    video
      ? h(
          'p',
          { className: 'muted', 'data-key': 'video-measured' },
          `Measured ${formatDateTime(video.measuredAt)}: a keyframe every ${video.keyframeIntervalSeconds} s, ${video.frameRate} frames/s; segments are ${video.segmentSeconds} s.`,
        )
      : h('p', { className: 'muted' }, 'Nothing measured yet: the keyframe interval and frame rate appear a few seconds after OBS starts streaming.'),
    h('h3', null, 'Refused publish attempts'),
    refusals.length === 0
      ? h('p', { className: 'muted' }, 'None. OBS shows only “Could not access the specified channel or stream key”; the reason appears here.')
      : tableWrap(
          'Refused publish attempts',
          h(
            'table',
            { className: 'refusals' },
            h('thead', null, h('tr', null, ['Time', 'Reason', 'From'].map((name) => h('th', { scope: 'col' }, name)))),
            h(
              'tbody',
              null,
              refusals.map((refusal) =>
                h(
                  'tr',
                  null,
                  h('td', null, formatDateTime(refusal.at)),
                  h(
                    'td',
                    null,
                    h('div', null, h('strong', null, REFUSAL_LABELS[refusal.reason] ?? refusal.reason), h('br'), h('span', { className: 'muted' }, refusal.message)),
                  ),
                  h('td', { className: 'mono' }, refusal.remoteAddr),
                ),
              ),
            ),
          ),
        ),
  ];
}

/** How many devices may watch on one code (an API from before the field sends none: one). */
function devicesLine(devicesPerCode: number | undefined): string {
  const devices = devicesPerCode ?? 1;
  return devices === 1 ? ' · one device per code' : ` · ${devices} devices per code`;
}
