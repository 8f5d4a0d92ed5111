import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '../../functions/domain/csv';
import { eventStatus } from '../../functions/domain/event-status';
import type { EventRecord } from '../../functions/domain/records';

describe('csv', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line\nbreak', '"line\nbreak"'],
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    [' =1+1', "' =1+1"],
    ['  @SUM(A1)', "'  @SUM(A1)"],
    ['\u3000=1', "'\u3000=1"],
    ['＝1+1', "'＝1+1"],
    ['＋1', "'＋1"],
    ['－1', "'－1"],
    ['＠cmd', "'＠cmd"],
    [' plain', ' plain'],
  ])('%j becomes %j', (input, output) => expect(csvCell(input)).toBe(output));

  it('joins rows with CRLF', () => expect(toCsv(['a', 'b'], [['1', '2']])).toBe('a,b\r\n1,2\r\n'));
});

describe('eventStatus', () => {
  const event = (overrides: Partial<EventRecord>) =>
    ({ startsAt: '2030-01-01T10:00:00.000Z', endsAt: '2030-01-01T12:00:00.000Z', accessWindowHours: 24, lastLiveEndedAt: null, ...overrides }) as EventRecord;
  const at = (iso: string) => new Date(iso);

  it('is not started before a publisher came on air', () => {
    expect(eventStatus(event({}), at('2030-01-01T11:00:00Z'))).toBe('not-started');
  });
  it('is recording after a stream while codes still work, then ended', () => {
    const streamed = event({ lastLiveEndedAt: '2030-01-01T12:01:00.000Z' });
    expect(eventStatus(streamed, at('2030-01-01T13:00:00Z'))).toBe('recording');
    expect(eventStatus(streamed, at('2030-01-02T12:00:00Z'))).toBe('ended');
    expect(eventStatus(event({}), at('2030-01-01T12:00:00Z'))).toBe('ended');
  });
  it('is live while the publish lease is fresh; an expired lease is a show that happened', () => {
    const leased = event({ leaseHolder: 'ingest-a', leaseExpiresAt: '2030-01-01T11:00:15.000Z' });
    expect(eventStatus(leased, at('2030-01-01T11:00:10Z'))).toBe('live');
    expect(eventStatus(leased, at('2030-01-01T11:00:15Z'))).toBe('recording');
    expect(eventStatus(leased, at('2030-01-03T00:00:00Z'))).toBe('ended');
    // A released lease: the show ended, its recording watchable.
    expect(eventStatus({ ...leased, leaseHolder: null, leaseExpiresAt: null, lastLiveEndedAt: '2030-01-01T11:00:05.000Z' }, at('2030-01-01T11:01:00Z'))).toBe('recording');
  });
});
