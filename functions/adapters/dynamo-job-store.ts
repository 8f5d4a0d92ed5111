import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AlreadyExists, NotFound } from '../domain/errors';
import type { JobRecord, JobStore } from '../domain/jobs';
import { epochSeconds } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { tableSchema } from './table-schema';

/**
 * Jobs on the one table (docs/data-model.md): `JOB#<id>` / `JOB`, and in the
 * `byEvent` index under `JOBS#<eventId>`, newest first, for the event's list.
 * A job's item is written a few times per step (its lanes' positions and
 * `done`), at most a few dozen times a second, far under one key's limit.
 */
const jobKey = (id: string) => ({ pk: `JOB#${id}`, sk: 'JOB' });
/** Ended jobs are collected after this (TTL); nothing depends on when. */
const KEEP_SECONDS = 30 * 24 * 60 * 60;
/** Fields absent from the item while null, so that a write can keep the first value (`if_not_exists`). */
const ABSENT_WHILE_NULL = ['startedAt', 'finishedAt', 'error', 'result', 'secret', 'endAudited'] as const;

const ttlOf = (iso: string) => epochSeconds(iso) + KEEP_SECONDS;

function toItem(job: JobRecord): Item {
  const item: Item = { ...jobKey(job.id), entity: 'job', gsi1pk: `JOBS#${job.eventId}`, gsi1sk: `${job.createdAt}#${job.id}`, ...job };
  for (const field of ABSENT_WHILE_NULL) if (item[field] === null) delete item[field];
  return item;
}

function toJob(item: Item): JobRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, ttl, ...rest } = item;
  const job = rest as unknown as JobRecord;
  for (const field of ABSENT_WHILE_NULL) job[field] ??= null;
  return job;
}

/** Names of every top-level attribute the updates touch: several are DynamoDB reserved words. */
const NAMES = { '#status': 'status', '#done': 'done', '#error': 'error', '#result': 'result', '#lanes': 'lanes', '#cursor': 'cursor', '#ttl': tableSchema.ttlAttribute };
/** The names an expression uses (DynamoDB refuses unused ones, and an empty map). */
function namesUsed(expression: string): Record<string, string> | undefined {
  const used = Object.entries(NAMES).filter(([name]) => new RegExp(`${name}\\b`).test(expression));
  return used.length > 0 ? Object.fromEntries(used) : undefined;
}
/** Paths of lane `lane`'s fields (its index is a number the runner checked, never text from outside). */
const lanePath = (lane: number, field: 'step' | 'finished' | 'cursor' | 'error' | 'failed') => `#lanes[${Math.trunc(lane)}].${field === 'error' ? '#error' : field === 'cursor' ? '#cursor' : field}`;

/** The jobs port on DynamoDB. */
export class DynamoJobStore implements JobStore {
  constructor(private readonly table: DynamoTable) {}

  async createJob(job: JobRecord): Promise<void> {
    await this.table.writeIf({ put: { Item: toItem(job), ConditionExpression: 'attribute_not_exists(pk)' } }, () => new AlreadyExists(`job ${job.id} exists`));
  }

  async getJob(id: string): Promise<JobRecord | null> {
    const item = await this.table.get(jobKey(id));
    return item ? toJob(item) : null;
  }

  async listEventJobs(eventId: string, limit: number): Promise<JobRecord[]> {
    const { Items } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: 'byEvent',
        KeyConditionExpression: 'gsi1pk = :jobs',
        ExpressionAttributeValues: { ':jobs': `JOBS#${eventId}` },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return ((Items ?? []) as Item[]).map(toJob);
  }

  /** One conditional update: the job after it, or null when the condition failed. */
  private async update(id: string, expression: string, condition: string, values: Record<string, unknown>): Promise<JobRecord | null> {
    const outcome = await this.table.writeIf({
      update: {
        Key: jobKey(id),
        UpdateExpression: expression,
        ConditionExpression: `attribute_exists(pk) AND ${condition}`,
        ExpressionAttributeNames: namesUsed(`${expression} ${condition}`),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      },
    });
    return outcome.applied ? toJob(outcome.item) : null;
  }

  private async existing(id: string): Promise<JobRecord> {
    const job = await this.getJob(id);
    if (!job) throw new NotFound('job', id);
    return job;
  }

  async markJobRunning(id: string, now: string): Promise<JobRecord> {
    return (
      (await this.update(id, 'SET #status = :running, startedAt = :now', '#status = :queued', { ':running': 'running', ':queued': 'queued', ':now': now })) ??
      this.existing(id)
    );
  }

  completeStep(args: Parameters<JobStore['completeStep']>[0]): Promise<JobRecord | null> {
    const { lane } = args;
    return this.update(
      args.id,
      `SET ${lanePath(lane, 'step')} = :next, ${lanePath(lane, 'finished')} = :finished, ${lanePath(lane, 'cursor')} = :cursor, ` +
        `${lanePath(lane, 'error')} = :null, ${lanePath(lane, 'failed')} = :false ADD #done :items`,
      `${lanePath(lane, 'step')} = :step AND ${lanePath(lane, 'finished')} = :false`,
      { ':next': args.step + 1, ':step': args.step, ':finished': args.finished, ':cursor': args.cursor, ':null': null, ':false': false, ':items': args.items },
    );
  }

  async recordStepError(args: { id: string; lane: number; step: number; error: string }): Promise<void> {
    const { lane } = args;
    await this.update(
      args.id,
      `SET ${lanePath(lane, 'error')} = :error`,
      `${lanePath(lane, 'step')} = :step AND ${lanePath(lane, 'finished')} = :false`,
      { ':error': args.error, ':step': args.step, ':false': false },
    );
  }

  async failStep(args: { id: string; lane: number; step: number; reason: string; now: string }): Promise<JobRecord> {
    const { lane } = args;
    // A job that failed already keeps its first reason and time: it ended then.
    const failed = await this.update(
      args.id,
      `SET ${lanePath(lane, 'failed')} = :true, ${lanePath(lane, 'error')} = :reason, #status = :failed, ` +
        'finishedAt = if_not_exists(finishedAt, :now), #error = if_not_exists(#error, :reason), #ttl = :ttl',
      `${lanePath(lane, 'step')} = :step AND ${lanePath(lane, 'finished')} = :false AND #status <> :done`,
      { ':true': true, ':false': false, ':reason': args.reason, ':failed': 'failed', ':done': 'done', ':now': args.now, ':ttl': ttlOf(args.now), ':step': args.step },
    );
    return failed ?? this.existing(args.id);
  }

  async reopenJob(id: string): Promise<JobRecord | null> {
    const job = await this.existing(id);
    const noLaneFailed = job.lanes.map((_, lane) => `${lanePath(lane, 'failed')} = :false`).join(' AND ');
    return this.update(id, 'SET #status = :running REMOVE finishedAt, #error, #ttl', `#status = :failed AND size(#lanes) = :lanes AND ${noLaneFailed}`, {
      ':running': 'running',
      ':failed': 'failed',
      ':false': false,
      ':lanes': job.lanes.length,
    });
  }

  async retryJob(id: string): Promise<JobRecord | null> {
    const job = await this.existing(id);
    const lanes = job.lanes.flatMap((lane, index) => [`${lanePath(index, 'failed')} = :false`, ...(lane.failed ? [`${lanePath(index, 'error')} = :null`] : [])]);
    return this.update(id, `SET #status = :running, ${lanes.join(', ')} REMOVE finishedAt, #error, #ttl`, '#status = :failed AND size(#lanes) = :lanes', {
      ':running': 'running',
      ':failed': 'failed',
      ':false': false,
      ...(job.lanes.some((lane) => lane.failed) ? { ':null': null } : {}),
      ':lanes': job.lanes.length,
    });
  }

  finishJob(args: { id: string; result: Record<string, unknown> | null; now: string }): Promise<JobRecord | null> {
    return this.update(args.id, 'SET #status = :done, finishedAt = :now, #result = :result, #ttl = :ttl REMOVE secret, #error', '#status <> :done', {
      ':done': 'done',
      ':now': args.now,
      ':result': args.result,
      ':ttl': ttlOf(args.now),
    });
  }

  async markEndAudited(id: string, finishedAt: string): Promise<void> {
    await this.update(id, 'SET endAudited = :at', 'finishedAt = :at', { ':at': finishedAt });
  }
}
