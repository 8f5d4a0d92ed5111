import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../functions/domain/config';
import { SESSION_TIMEOUT_SECONDS } from '../../functions/domain/config';
import type { CodeRecord, EventRecord } from '../../functions/domain/records';
import { validateCode } from '../../functions/domain/access';
import type { AccessDeps } from '../../functions/compose/stores';
import { errorAnswer } from '../../functions/http/error-table';
import { memoryStores, type MemoryStores } from './memory-stores';
import { sampleCode, sampleEvent } from './store-records';

/** The domain's use cases on the in-memory stores, with a clock the test moves. */
export interface DomainFixture {
  stores: MemoryStores;
  /** The stores are every port's, the staff accounts' included. */
  deps: AccessDeps & { stores: MemoryStores };
  /** The clock's time now. */
  now(): Date;
  /** Moves the clock on. */
  advance(seconds: number): void;
  /** An event (on from now for an hour, codes valid 24 h after) with one fresh code. */
  eventWithCode(overrides?: { event?: Partial<EventRecord>; code?: Partial<CodeRecord> }): Promise<{ event: EventRecord; code: CodeRecord }>;
  /** As `eventWithCode`, with a viewer watching: the code validated, its session and JWT. */
  watching(overrides?: { event?: Partial<EventRecord>; code?: Partial<CodeRecord> }): Promise<{
    event: EventRecord;
    code: CodeRecord;
    token: string;
    sessionId: string;
  }>;
}

export const PLAYBACK_BASE_URL = 'https://media.example.com';

/** `start` is on a minute boundary, so a test's rate-limit window starts with it. */
export function domainFixture(start = '2026-11-22T20:00:00.000Z'): DomainFixture {
  const stores = memoryStores();
  let clock = Date.parse(start);
  const config: AppConfig = {
    playbackBaseUrl: PLAYBACK_BASE_URL,
    mediaPort: 4000,
    ingestRtmpUrl: null,
    ingestRtmpPort: 1935,
    segmentSeconds: 1,
    signingKeys: { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(randomBytes(32))]]) },
    internalApiKey: '',
    originVerifySecret: null,
    watermarkSecret: 'the unit tests\' watermark secret',
    siteOrigin: null,
    sessionTimeoutSeconds: SESSION_TIMEOUT_SECONDS,
  };
  const now = () => new Date(clock);
  return {
    stores,
    deps: { stores, config, now },
    now,
    advance(seconds) {
      clock += seconds * 1000;
    },
    async eventWithCode(overrides = {}) {
      const at = now().toISOString();
      const event = sampleEvent({
        startsAt: at,
        endsAt: new Date(clock + 3_600_000).toISOString(),
        createdAt: at,
        updatedAt: at,
        activeChangedAt: at,
        tokenCount: 1,
        ...overrides.event,
      });
      await stores.events.createEvent(event);
      const code = sampleCode(event.id, { createdAt: at, ...overrides.code });
      await stores.codes.createCode(code);
      return { event, code };
    },
    async watching(overrides = {}) {
      const { event, code } = await this.eventWithCode(overrides);
      const { playbackToken } = await validateCode(this.deps, { code: code.code, ip: '198.51.100.7', playbackBaseUrl: PLAYBACK_BASE_URL });
      return { event, code, token: playbackToken, sessionId: (await stores.codes.getCode(code.code))!.session!.id };
    },
  };
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * What the API answers when `work` fails: the error's answer in the handlers' own error table, so a
 * rule's test states the spec's status and message. Fails the test when `work` succeeds or throws
 * something the API would answer with a 500.
 */
export async function refusal(work: Promise<unknown>): Promise<Answer> {
  let error: unknown;
  try {
    await work;
  } catch (caught) {
    error = caught;
  }
  if (error === undefined) throw new Error('expected a refusal, but it succeeded');
  const answer = errorAnswer(error);
  if (!answer) throw error;
  return { status: answer.status, body: answer.body as Record<string, unknown>, headers: answer.headers ?? {} };
}

/** Who acts in a use case a test calls: a staff member (or the ingest, the shop), from a documentation address. */
export const actor = <N extends string = 'owner'>(name: N = 'owner' as N, clientIp = '192.0.2.7') => ({ name, clientIp });
