import { describe, expect, it } from 'vitest';
import { encoderPanelState, type EncoderRow } from '../../web/src/admin/models/encoders-model';

const encoder = (role: EncoderRow['role'], connected: boolean, onAir: boolean): EncoderRow => ({
  role,
  protocol: 'rtmp',
  connected,
  onAir,
  since: '2026-11-28T18:00:00.000Z',
  video: { width: 1280, height: 720, frameRate: 30 },
});

describe('the encoder panel', () => {
  it('names which encoder is on air and offers the switch to the one standing by', () => {
    const state = encoderPanelState([encoder('primary', true, true), encoder('backup', true, false)]);
    expect(state.rows.map((row) => [row.label, row.state, row.video])).toEqual([
      ['Primary', 'On air', '1280×720 at 30 fps'],
      ['Backup', 'Standing by', '1280×720 at 30 fps'],
    ]);
    expect(state.switchTo).toEqual({ role: 'backup', label: 'Put the backup on air' });
    expect(encoderPanelState([encoder('primary', true, false), encoder('backup', true, true)]).switchTo).toEqual({ role: 'primary', label: 'Put the primary on air' });
  });

  it('offers no switch without a connected standby, or with nothing on air', () => {
    expect(encoderPanelState([encoder('primary', true, true), encoder('backup', false, false)]).switchTo).toBeNull();
    expect(encoderPanelState([encoder('primary', true, true)]).switchTo).toBeNull();
    expect(encoderPanelState([]).switchTo).toBeNull();
    expect(encoderPanelState([encoder('backup', false, false)]).rows[0]!.state).toBe('Not connected');
  });
});
