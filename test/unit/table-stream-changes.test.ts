import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { tableChange, tableChanges } from '../../functions/adapters/table-stream-changes';
import { orderOwingEmail } from '../../functions/triggers/mailer';
import { audienceChangesOf } from '../../functions/triggers/audience-recorder';

const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue>;
const record = (before: Record<string, unknown> | null, after: Record<string, unknown> | null, seconds?: number): DynamoDBRecord => ({
  eventName: before ? (after ? 'MODIFY' : 'REMOVE') : 'INSERT',
  dynamodb: {
    Keys: image({ pk: (after ?? before)!.pk, sk: (after ?? before)!.sk }),
    ...(before ? { OldImage: image(before) } : {}),
    ...(after ? { NewImage: image(after) } : {}),
    ...(seconds ? { ApproximateCreationDateTime: seconds } : {}),
  },
});
const now = new Date('2026-11-28T12:00:00.000Z');

describe('the table stream as typed changes', () => {
  it('reads a code item as the code record it stores, keys and index fields left out, at the write time of the record', () => {
    const item = { pk: 'CODE#ABC', sk: 'CODE', entity: 'code', tokenId: 't1', code: 'ABC', eventId: 'e1', isRevoked: true, codesPk: 'x', feedPk: 'y' };
    const change = tableChange(record(null, item, 1_764_331_200), now);
    expect(change).toEqual({ kind: 'code', before: null, after: { id: 't1', code: 'ABC', eventId: 'e1', isRevoked: true }, at: '2025-11-28T12:00:00.000Z' });
  });

  it("reads an event item, telling a deleted event's tombstone apart; other items under EVENT# are not events", () => {
    const event = { pk: 'EVENT#e1', sk: 'EVENT', entity: 'event', id: 'e1', title: 'Gala', isActive: true, gsi1pk: 'EVENTS' };
    const change = tableChange(record(event, { ...event, isActive: false, deleted: true }), now);
    expect(change).toMatchObject({ kind: 'event', before: { id: 'e1', isActive: true }, after: { id: 'e1', isActive: false }, deleted: { before: false, after: true }, at: now.toISOString() });
    expect(change.kind === 'event' && 'deleted' in (change.after ?? {})).toBe(false);
    expect(tableChange(record(null, { pk: 'EVENT#e1', sk: 'COUNT#3', n: 1 }), now)).toEqual({ kind: 'other', pk: 'EVENT#e1', at: now.toISOString() });
  });

  it('reads an order item as its order record, and anything else as other, by its key', () => {
    const order = { pk: 'ORDER#shop#1', sk: 'ORDER', entity: 'order', id: 'shop#1', emailStatus: 'pending', emailAttempts: 0 };
    expect(tableChange(record(null, order), now)).toMatchObject({ kind: 'order', before: null, after: { id: 'shop#1', emailStatus: 'pending' } });
    expect(tableChanges([record(null, { pk: 'RATE#validate#x', sk: 'RATE', n: 1 })], now)).toEqual([{ kind: 'other', pk: 'RATE#validate#x', at: now.toISOString() }]);
  });

  it('fails on an image it cannot read, so that the batch is retried', () => {
    expect(() => tableChange({ dynamodb: { Keys: image({ pk: 'CODE#X', sk: 'CODE' }), NewImage: { pk: { X: 'unreadable' } } as never } }, now)).toThrow();
  });

  it("gives the mailer the orders a write left owing an email, and nothing else", () => {
    const order = { pk: 'ORDER#shop#1', sk: 'ORDER', id: 'shop#1', emailStatus: 'pending', emailAttempts: 1, emailRequest: 'r1' };
    expect(orderOwingEmail(record(null, order))).toMatchObject({ id: 'shop#1', emailRequest: 'r1', emailAttempts: 1 });
    expect(orderOwingEmail(record(order, { ...order, emailStatus: 'sent' }))).toBeNull();
    expect(orderOwingEmail(record(null, { pk: 'CODE#A', sk: 'CODE', emailStatus: 'pending' }))).toBeNull();
    expect(orderOwingEmail(record(order, null))).toBeNull();
  });

  it('gives the audience recorder codes with their write time, and events with tombstones as gone', () => {
    const event = { pk: 'EVENT#e1', sk: 'EVENT', id: 'e1', title: 'Gala', isActive: true };
    const changes = tableChanges(
      [record(null, { pk: 'CODE#A', sk: 'CODE', tokenId: 't1', code: 'A' }, 1_764_331_200), record(event, { ...event, deleted: true }), record(null, { pk: 'ORDER#x', sk: 'ORDER', id: 'x' })],
      now,
    );
    expect(audienceChangesOf(changes)).toEqual({
      codes: [{ before: null, after: { id: 't1', code: 'A' }, at: '2025-11-28T12:00:00.000Z' }],
      events: [{ before: { id: 'e1', title: 'Gala', isActive: true }, after: null }],
    });
  });
});
