/**
 * The backup encoder on the event page: its stream key beside the primary's, and the panel of both
 * encoders with the switch by hand (state in `models/encoders-model.ts`).
 */
import { h, type Child } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import type { EventDetail } from '../api';
import { encoderPanelState, type EncoderRole } from '../models/encoders-model';
import { tableWrap } from '../ui';

/** The backup's stream key, drawn with the page's own copy field; events made before backups get the hint to rotate. */
export function backupKeyField(event: EventDetail, copyField: (id: string, label: string, value: string, secret: boolean) => HTMLElement): HTMLElement {
  const backup = event.ingest?.backup;
  if (!backup) return h('p', { className: 'hint', 'data-key': 'backup-missing' }, 'Rotate the stream key to get SRT and backup settings.');
  return h(
    'div',
    { 'data-key': 'backup-key' },
    copyField('obs-backup-key', 'Backup stream key', backup.streamKey, true),
    h('p', { className: 'hint' }, 'A second encoder publishing with this key stands by; viewers get it within seconds if the primary fails.'),
  );
}

/** Both encoders as the ingest reports them, which one viewers get, and "Put the backup on air" (and back). */
export function encoderPanel(event: EventDetail, switchTo: (button: HTMLButtonElement, role: EncoderRole) => void): Child[] {
  const encoders = event.ingest?.encoders ?? [];
  const state = encoderPanelState(encoders);
  const button = state.switchTo && h('button', { type: 'button', 'data-key': 'switch-on-air' }, state.switchTo.label);
  if (button && state.switchTo) {
    const role = state.switchTo.role;
    button.addEventListener('click', () => switchTo(button, role));
  }
  return [
    h('h3', null, 'Primary and backup'),
    state.rows.length === 0
      ? h('p', { className: 'muted', 'data-key': 'encoders-none' }, 'No encoder connected.')
      : tableWrap(
          'Primary and backup encoders',
          h(
            'table',
            { className: 'encoders', 'data-key': 'encoders' },
            h('thead', null, h('tr', null, ['Encoder', 'State', 'Protocol', 'Picture', 'Since'].map((name) => h('th', { scope: 'col' }, name)))),
            h(
              'tbody',
              null,
              state.rows.map((row) =>
                h(
                  'tr',
                  { 'data-role': row.role, className: row.onAir ? 'on-air' : '' },
                  h('td', null, h('strong', null, row.label)),
                  h('td', { 'data-key': `encoder-state-${row.role}` }, row.state),
                  h('td', null, row.protocol),
                  h('td', null, row.video),
                  h('td', null, formatDateTime(row.since)),
                ),
              ),
            ),
          ),
        ),
    button ? h('div', { className: 'toolbar' }, button) : null,
  ];
}
