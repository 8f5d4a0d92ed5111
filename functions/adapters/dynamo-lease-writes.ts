/**
 * The publish lease's writes (functions/domain/streams/stream-lease.ts): taking or renewing it, the
 * registration of a standby (the process holding the other encoder), and the holder's handover to it.
 * Each is one conditional update of the event item; the events store runs them.
 */
import type { EncoderRole } from '../domain/records';
import { eventKey } from './dynamo-keys';

export interface AcquireArgs {
  holder: string;
  now: string;
  expiresAt: string;
  role?: EncoderRole;
}

/** When there is no lease, it is `holder`'s, or it ran out; records the encoder on air (absent: the primary). */
export function acquireUpdate(id: string, { holder, now, expiresAt, role = 'primary' }: AcquireArgs) {
  return {
    Key: eventKey(id),
    UpdateExpression: 'SET leaseHolder = :holder, leaseExpiresAt = :expires, leaseRole = :role, updatedAt = :now',
    ConditionExpression:
      'attribute_exists(pk) AND attribute_not_exists(deleted) AND (attribute_not_exists(leaseHolder) OR leaseHolder = :null OR leaseHolder = :holder OR leaseExpiresAt <= :now)',
    ExpressionAttributeValues: { ':holder': holder, ':expires': expiresAt, ':now': now, ':null': null, ':role': role },
    ReturnValues: 'ALL_NEW' as const,
  };
}

export interface StandbyArgs {
  holder: string;
  role: EncoderRole;
  now: string;
  expiresAt: string;
  /** The lease as the caller read it: the registration holds only while it is unchanged. */
  seen: { holder: string; role: EncoderRole | null };
}

export interface HandOverArgs {
  holder: string;
  to: { holder: string; role: EncoderRole };
  now: string;
  expiresAt: string;
}

/** While the lease is fresh, as read, and no other fresh standby is registered. */
export function registerStandbyUpdate(id: string, { holder, role, now, expiresAt, seen }: StandbyArgs) {
  const roleSeen = seen.role ? 'leaseRole = :seenRole' : '(attribute_not_exists(leaseRole) OR leaseRole = :null)';
  return {
    Key: eventKey(id),
    UpdateExpression: 'SET standbyHolder = :holder, standbyRole = :role, standbyExpiresAt = :expires',
    ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND leaseHolder = :seenHolder AND leaseExpiresAt > :now AND ${roleSeen} AND (attribute_not_exists(standbyHolder) OR standbyHolder = :null OR standbyHolder = :holder OR standbyExpiresAt <= :now)`,
    ExpressionAttributeValues: {
      ...{ ':holder': holder, ':role': role, ':expires': expiresAt, ':now': now, ':null': null, ':seenHolder': seen.holder },
      ...(seen.role ? { ':seenRole': seen.role } : {}),
    },
    ReturnValues: 'ALL_NEW' as const,
  };
}

/** The holder's lease to its fresh standby, which becomes the holder with its encoder's role. */
export function handOverUpdate(id: string, { holder, to, now, expiresAt }: HandOverArgs) {
  return {
    Key: eventKey(id),
    UpdateExpression:
      'SET leaseHolder = :to, leaseRole = :role, leaseExpiresAt = :expires, standbyHolder = :null, standbyRole = :null, standbyExpiresAt = :null, updatedAt = :now',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted) AND leaseHolder = :holder AND standbyHolder = :to AND standbyRole = :role AND standbyExpiresAt > :now',
    ExpressionAttributeValues: { ':holder': holder, ':to': to.holder, ':role': to.role, ':expires': expiresAt, ':now': now, ':null': null },
    ReturnValues: 'ALL_NEW' as const,
  };
}
