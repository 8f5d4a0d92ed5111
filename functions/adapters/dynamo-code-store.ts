import { sessionById, sessionSlotOf, sessionsOf, slotAttribute, type CodeStore } from '../domain/codes';
import { codeDenyUntil, endedSessionsAfter } from '../domain/access';
import { AccessRevoked, AlreadyExists, CodeInUse, Contended, NotFound, SessionGone } from '../domain/errors';
import { qualityUpdate } from './dynamo-quality-update';
import type { CodeRecord, CodeSummary } from '../domain/records';
import { accessChangesSince } from './dynamo-access-feed';
import { codeKey, codeLabelSk, eventCodeShards, eventCodesPk, feedValues, shardOf } from './dynamo-keys';
import { listCodePage, toCodeSummary } from './dynamo-code-pages';
import { codeSessionIds, listLiveSessions, liveSessionCounts, liveSessionSk } from './dynamo-sessions';
import type { DynamoTable, Item } from './dynamo-table';
import { CODE_SHARDS } from './table-schema';

const FAN_OUT = 16;
/** Read-then-write attempts on a code that others keep changing (revokes, releases) before Contended. */
const REVOKE_ATTEMPTS = 9;
const RELEASE_ATTEMPTS = 5;

/** A code item (as read, or as a stream image) as the domain's record. */
export function toCode(item: Item): CodeRecord {
  const { pk, sk, entity, codesPk, codesSk, labelPk, labelSk, feedPk, feedSk, liveSk, ttl, tokenId, revokeCounted, ...rest } = item;
  return { ...(rest as unknown as Omit<CodeRecord, 'id'>), id: tokenId as string };
}
const toCodeOrNull = (item: Item | null) => (item ? toCode(item) : null);

/** A new code's item: its keys in the table and in the event's sharded indexes (`codesByEvent`, `byLabel`). */
export function codeItem(code: CodeRecord): Item {
  const { id, ...rest } = code;
  const shard = eventCodesPk(code.eventId, shardOf(code.code, CODE_SHARDS));
  return {
    ...codeKey(code.code),
    entity: 'code',
    tokenId: id,
    codesPk: shard,
    codesSk: `${code.createdAt}#${id}`,
    labelPk: shard,
    labelSk: codeLabelSk(code.label, code.createdAt, id),
    ...rest,
  };
}

/** Why a session write on `code` (as the write saw it) did not apply. */
function lostSessionWrite(code: CodeRecord | null): Error {
  if (!code || code.isRevoked || !code.eventActive) return new AccessRevoked('code or event no longer active', code);
  return new SessionGone('session ended', code);
}

/**
 * The session condition of a heartbeat and of marking a long-lived URL: still this session, fresh, and the code still grants access.
 * `#session` names the session's slot (`slotNames`).
 */
const LIVE_SESSION = '#session.id = :sid AND #session.heartbeatAt >= :staleBefore AND isRevoked = :false AND eventActive = :true';

/** `#session` as the attribute of the slot session `sessionId` holds (its id names it). */
const slotNames = (sessionId: string) => ({ '#session': slotAttribute(sessionSlotOf(sessionId)) });

/**
 * The codes port on DynamoDB: one item per code (`CODE#<code>`) holding its session; an event's
 * codes in the sharded `codesByEvent` index, its live sessions in `liveSessions` (dynamo-sessions.ts),
 * the access feed in `accessFeed` (dynamo-access-feed.ts). Every change to a code is one conditional write.
 */
export class DynamoCodeStore implements CodeStore {
  constructor(private readonly table: DynamoTable) {}

  async createCode(code: CodeRecord): Promise<void> {
    await this.table.writeIf(
      { put: { Item: codeItem(code), ConditionExpression: 'attribute_not_exists(pk)' } },
      () => new AlreadyExists('code exists'),
    );
  }

  async deleteCodes(codes: string[]): Promise<void> {
    await this.table.deleteAll(codes.map(codeKey));
  }

  async deleteEventCodes(eventId: string): Promise<void> {
    await this.deleteCodes((await this.listCodes(eventId)).map((code) => code.code));
  }

  async getCode(code: string): Promise<CodeRecord | null> {
    return toCodeOrNull(await this.table.get(codeKey(code)));
  }

  async getCodeById(id: string): Promise<CodeRecord | null> {
    const [item] = await this.table.queryAll({
      IndexName: 'byTokenId',
      KeyConditionExpression: 'tokenId = :id',
      ExpressionAttributeValues: { ':id': id },
    });
    // The index may lag; the base item is the truth.
    return item ? this.getCode(item.code as string) : null;
  }

  async listCodes(eventId: string): Promise<CodeSummary[]> {
    const shards = await Promise.all(
      eventCodeShards(eventId).map((pk) =>
        this.table.queryAll({ IndexName: 'codesByEvent', KeyConditionExpression: 'codesPk = :shard', ExpressionAttributeValues: { ':shard': pk } }),
      ),
    );
    // Newest first, as one listing: the shards are merged on the sort key.
    return shards
      .flat()
      .sort((a, b) => ((a.codesSk as string) < (b.codesSk as string) ? 1 : -1))
      .map(toCodeSummary);
  }

  listCodePage(args: Parameters<CodeStore['listCodePage']>[0]): Promise<{ codes: CodeSummary[]; nextCursor: string | null }> {
    return listCodePage(this.table, args);
  }

  async copyEventActive(eventId: string, active: boolean): Promise<void> {
    const codes = await this.listCodes(eventId);
    for (let i = 0; i < codes.length; i += FAN_OUT) {
      await Promise.all(
        codes.slice(i, i + FAN_OUT).map((code) =>
          // The condition keeps the update from creating a code deleted meanwhile.
          this.table.writeIf({
            update: {
              Key: codeKey(code.code),
              UpdateExpression: 'SET eventActive = :active',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':active': active },
            },
          }),
        ),
      );
    }
  }

  async revocationCountState(code: string): Promise<{ eventId: string; isRevoked: boolean; counted: boolean } | null> {
    const item = await this.table.get(codeKey(code));
    return item && { eventId: item.eventId as string, isRevoked: item.isRevoked as boolean, counted: (item.revokeCounted ?? item.isRevoked) as boolean };
  }

  async acknowledgeRevocationCount(code: string, counted: boolean): Promise<boolean> {
    const update = { Key: codeKey(code), UpdateExpression: 'SET revokeCounted = :counted', ConditionExpression: 'attribute_exists(pk) AND isRevoked = :counted' };
    return (await this.table.writeIf({ update: { ...update, ExpressionAttributeValues: { ':counted': counted } } })).applied;
  }

  async setCodeRevoked(id: string, revoked: boolean, now: string, code?: string): Promise<{ code: CodeRecord; changed: boolean }> {
    // The session state the write starts from decides how long the edge denies the code, so the write
    // requires it unchanged (no claim in between); a lost race starts again from the code the write saw.
    let current = code === undefined ? await this.getCodeById(id) : await this.getCode(code);
    if (current && current.id !== id) current = null;
    for (let attempt = 0; attempt < REVOKE_ATTEMPTS; attempt++) {
      if (!current) throw new NotFound('code', id);
      if (current.isRevoked === revoked) return { code: current, changed: false };
      const outcome = await this.table.writeIf({
        update: {
          Key: codeKey(current.code),
          UpdateExpression:
            // `revokeCounted` keeps what the revoked count held before (an item written before it existed: the state it had).
            'SET isRevoked = :revoked, revokedAt = :revokedAt, revokedChangedAt = :now, denyUntil = :denyUntil, feedPk = :feedPk, feedSk = :feedSk, revokeCounted = if_not_exists(revokeCounted, :was)',
          ConditionExpression: 'attribute_exists(pk) AND revision = :revision AND isRevoked = :was',
          ExpressionAttributeValues: {
            ':revoked': revoked,
            ':was': current.isRevoked,
            ':revokedAt': revoked ? now : null,
            ':now': now,
            ':denyUntil': revoked ? codeDenyUntil(current, now) : null,
            ':revision': current.revision,
            ...feedValues(now, codeKey(current.code).pk),
          },
          ReturnValues: 'ALL_NEW',
        },
      });
      if (outcome.applied) return { code: toCode(outcome.item), changed: true };
      current = toCodeOrNull(await outcome.seen());
    }
    throw new Contended(`token ${id} kept changing while ${revoked ? 'revoking' : 'unrevoking'} it`);
  }

  async claimSession(args: Parameters<CodeStore['claimSession']>[0]): Promise<CodeRecord> {
    // The claim writes its slot alone (a heartbeat of another slot meanwhile is kept). A claim of slot 1
    // (every claim of a one-device code) puts the code's entry in the event's live-sessions index at this
    // claim; one of another slot leaves a listed code where it is, so a code's further devices never write
    // the index (its shards' load stays one entry per code, not per device).
    const slot = sessionSlotOf(args.session.id);
    const sets = ['#session = :session', 'endedSessions = :ended', 'revision = revision + :one', slot === 1 ? 'liveSk = :liveSk' : 'liveSk = if_not_exists(liveSk, :liveSk)'];
    const values: Record<string, unknown> = {
      ':session': args.session,
      ':liveSk': liveSessionSk(args.session),
      ':ended': args.endedSessions,
      ':one': 1,
      ':expected': args.expectedRevision,
      ':false': false,
      ':true': true,
    };
    if (args.redeemed) {
      sets.push('redeemedAt = :redeemedAt', 'redeemedIp = :redeemedIp');
      values[':redeemedAt'] = args.redeemed.at;
      values[':redeemedIp'] = args.redeemed.ip;
    }
    if (args.toEdge) {
      sets.push('feedPk = :feedPk', 'feedSk = :feedSk');
      Object.assign(values, feedValues(args.now, codeKey(args.code).pk));
    }
    const item = await this.table.writeIf(
      {
        update: {
          Key: codeKey(args.code),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'revision = :expected AND isRevoked = :false AND eventActive = :true',
          ExpressionAttributeNames: slotNames(args.session.id),
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        },
      },
      async (seen) => new CodeInUse('the code changed while claiming it', toCodeOrNull(await seen())),
    );
    return toCode(item);
  }

  async heartbeat(args: Parameters<CodeStore['heartbeat']>[0]): Promise<void> {
    const { sets, values, removes } = qualityUpdate(args.quality);
    await this.table.writeIf(
      {
        update: {
          Key: codeKey(args.code),
          UpdateExpression: `SET ${['#session.heartbeatAt = :now', ...sets].join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: LIVE_SESSION,
          ExpressionAttributeNames: slotNames(args.sessionId),
          ExpressionAttributeValues: { ':now': args.now, ':sid': args.sessionId, ':staleBefore': args.staleBefore, ':false': false, ':true': true, ...values },
        },
      },
      async (seen) => lostSessionWrite(toCodeOrNull(await seen())),
    );
  }

  async markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void> {
    // The revision moves too: a revoke sizes the code's deny from the session it read, so it must read again.
    const outcome = await this.table.writeIf({
      update: {
        Key: codeKey(args.code),
        UpdateExpression: 'SET #session.longLivedUntil = :until, revision = revision + :one',
        ConditionExpression: `${LIVE_SESSION} AND (attribute_not_exists(#session.longLivedUntil) OR #session.longLivedUntil < :until)`,
        ExpressionAttributeNames: slotNames(args.sessionId),
        ExpressionAttributeValues: { ':until': args.until, ':one': 1, ':sid': args.sessionId, ':staleBefore': args.staleBefore, ':false': false, ':true': true },
      },
    });
    if (outcome.applied) return;
    const code = toCodeOrNull(await outcome.seen());
    const session = code && sessionById(code, args.sessionId);
    const live = !!session && session.heartbeatAt >= args.staleBefore && code!.eventActive && !code!.isRevoked;
    // Marked already with a later time: nothing to do.
    if (!live || (session!.longLivedUntil ?? '') < args.until) throw lostSessionWrite(code);
  }

  async releaseSession(args: Parameters<CodeStore['releaseSession']>[0]): Promise<boolean> {
    let code = await this.getCode(args.code);
    for (let attempt = 0; ; attempt++) {
      const session = code && sessionById(code, args.sessionId);
      if (!code || !session) return false;
      const { endedSessions, toEdge } = endedSessionsAfter(code, session, args.by === 'admin' ? 'admin' : 'release', args.now);
      // The code stays listed while another of its slots holds a session.
      const lastSession = sessionsOf(code).length === 1;
      const values: Record<string, unknown> = { ':null': null, ':ended': endedSessions, ':endedAt': args.now, ':one': 1, ':expected': code.revision };
      if (toEdge) Object.assign(values, feedValues(args.now, codeKey(args.code).pk));
      const outcome = await this.table.writeIf({
        update: {
          Key: codeKey(args.code),
          UpdateExpression: `SET #session = :null, endedSessions = :ended, sessionEndedAt = :endedAt, revision = revision + :one${toEdge ? ', feedPk = :feedPk, feedSk = :feedSk' : ''}${lastSession ? ' REMOVE liveSk' : ''}`,
          ConditionExpression: 'revision = :expected',
          ExpressionAttributeNames: slotNames(args.sessionId),
          ExpressionAttributeValues: values,
        },
      });
      if (outcome.applied) return true;
      // Not "gone already": the session may still stand, and a caller must not report it ended.
      if (attempt + 1 >= RELEASE_ATTEMPTS) throw new Contended(`code ${args.code} kept changing while ending session ${args.sessionId}`);
      code = toCodeOrNull(await outcome.seen());
    }
  }

  listEventSessions(args: Parameters<CodeStore['listEventSessions']>[0]) {
    return listLiveSessions({ table: this.table, partitions: eventCodeShards(args.eventId), codeKey }, args);
  }

  liveSessionCounts(codes: string[], liveAfter: string): Promise<Map<string, number>> {
    return liveSessionCounts({ table: this.table, codeKey }, codes, liveAfter);
  }

  codeSessionIds(codes: string[]): Promise<Map<string, string[]>> {
    return codeSessionIds({ table: this.table, codeKey }, codes);
  }

  accessChangesSince(since: string) {
    return accessChangesSince(this.table, since);
  }
}
