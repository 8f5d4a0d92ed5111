import { describe, expect, it } from 'vitest';
import type { AccessRequest } from '../../ingest-container/src/auth/access-request';
import { ErrUnauthorized } from '../../ingest-container/src/auth/errors';
import { createTickets } from '../../ingest-container/src/srt/tickets';

const caller: AccessRequest = { action: 'publish', app: 'live', streamName: 'ev1', token: 'srt-key', remoteAddr: '203.0.113.9:40000', protocol: 'srt' };
const remux = (token: string | undefined, streamName = 'ev1'): AccessRequest => ({ action: 'publish', app: 'live', streamName, token, remoteAddr: '127.0.0.1:50000' });

describe('SRT remux tickets', () => {
  it('admits the remux once, as the SRT caller with its grant', async () => {
    const tickets = createTickets();
    const ticket = tickets.issue(caller, { srtPassphrase: 'p' });
    await expect(tickets.redeem(remux(ticket))).resolves.toEqual({ srtPassphrase: 'p', admittedAs: caller });
    await expect(tickets.redeem(remux(ticket))).rejects.toBeInstanceOf(ErrUnauthorized);
  });

  it('refuses a ticket for another stream, an unknown one, none, and one past its 30 s', async () => {
    let now = 0;
    const tickets = createTickets(() => now);
    await expect(tickets.redeem(remux(tickets.issue(caller, {}), 'other'))).rejects.toBeInstanceOf(ErrUnauthorized);
    await expect(tickets.redeem(remux('made-up'))).rejects.toBeInstanceOf(ErrUnauthorized);
    await expect(tickets.redeem(remux(undefined))).rejects.toBeInstanceOf(ErrUnauthorized);
    const late = tickets.issue(caller, {});
    now = 30_000;
    await expect(tickets.redeem(remux(late))).rejects.toBeInstanceOf(ErrUnauthorized);
  });
});
