import { afterEach, describe, expect, it, vi } from 'vitest';
import { droppedReportsTelemetry, logger } from '../../functions/adapters/telemetry';

afterEach(() => vi.restoreAllMocks());

describe("the heartbeat's dropped quality reports", () => {
  it('are logged once per session and counted each time', () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const telemetry = droppedReportsTelemetry();
    for (let i = 0; i < 3; i++) telemetry.dropped('session-a', { field: 'qoe.playingMs', problem: 'must be a number' });
    telemetry.dropped('session-b', { field: 'qoe', problem: 'must be an object' });
    expect(warn.mock.calls).toEqual([
      ['heartbeat quality report dropped', { session_id: 'session-a', field: 'qoe.playingMs', problem: 'must be a number' }],
      ['heartbeat quality report dropped', { session_id: 'session-b', field: 'qoe', problem: 'must be an object' }],
    ]);
    // One embedded-metric line per dropped report.
    const points = written.filter((line) => line.includes('"QualityReportDropped"'));
    expect(points).toHaveLength(4);
  });
});
