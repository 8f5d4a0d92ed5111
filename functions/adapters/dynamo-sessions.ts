import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LiveSessionRecord, PlaybackSession } from '../domain/records';
import { decodeCursor, encodeCursor } from './dynamo-cursor';

type Item = Record<string, unknown>;

/**
 * An event's live sessions on the current data model, where a session lives
 * on its code's item: one filtered, projected read of the event's codes
 * (index `byEvent`), sorted by start, newest first, paged by a keyset cursor
 * (start time and session id of the last row shown) so rows do not shift
 * between pages as viewers come and go. The read grows with the event's
 * codes; a per-event session index makes it grow with one page instead, and
 * only this function needs to change for it.
 */
export async function listEventSessions(
  client: DynamoDBDocumentClient,
  table: string,
  args: { eventId: string; liveAfter: string; cursor: string | null; limit: number },
): Promise<{ sessions: LiveSessionRecord[]; total: number; nextCursor: string | null }> {
  const after = args.cursor ? decodeCursor(args.cursor, ['startedAt', 'sessionId'], () => true) : null;
  const live: LiveSessionRecord[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byEvent',
        KeyConditionExpression: 'gsi1pk = :event',
        // A revoked code's session is over whatever its last heartbeat says: the edge refuses it.
        FilterExpression: '#session.heartbeatAt > :after AND isRevoked = :false',
        ProjectionExpression: 'tokenId, code, label, #session',
        ExpressionAttributeNames: { '#session': 'session' },
        ExpressionAttributeValues: { ':event': `EVENT#${args.eventId}`, ':after': args.liveAfter, ':false': false },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of (page.Items ?? []) as Item[]) {
      live.push({
        session: item.session as PlaybackSession,
        tokenId: item.tokenId as string,
        code: item.code as string,
        label: (item.label as string | undefined) ?? '',
      });
    }
    start = page.LastEvaluatedKey as Item | undefined;
  } while (start);

  const newestFirst = (a: LiveSessionRecord, b: LiveSessionRecord) =>
    b.session.startedAt.localeCompare(a.session.startedAt) || b.session.id.localeCompare(a.session.id);
  live.sort(newestFirst);
  // Keyset paging: what sorts after the last row of the previous page.
  const rest = after ? live.filter((entry) => newestFirst(entry, toRecord(after)) > 0) : live;
  const sessions = rest.slice(0, args.limit);
  const last = sessions[sessions.length - 1];
  return {
    sessions,
    total: live.length,
    nextCursor: rest.length > args.limit && last ? encodeCursor({ startedAt: last.session.startedAt, sessionId: last.session.id }) : null,
  };
}

function toRecord(position: Record<string, string>): LiveSessionRecord {
  return {
    session: { id: position.sessionId!, startedAt: position.startedAt!, heartbeatAt: '' },
    tokenId: '',
    code: '',
    label: '',
  };
}
