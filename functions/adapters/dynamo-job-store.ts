import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AlreadyExists, Contended, NotFound } from '../domain/errors';
import type { JobRecord, JobStore } from '../domain/job-store';
import { conditionalWriter, type ConditionalWriter } from './dynamo-conditional';
import { eventKey } from './dynamo-store';
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
/** How many of a job's codes the event item has counted already: an attribute of the event item per job. */
const countedName = (jobId: string) => `jobCodes#${jobId}`;
const COUNT_ATTEMPTS = 8;
/** Fields absent from the item while null, so that a write can keep the first value (`if_not_exists`). */
const ABSENT_WHILE_NULL = ['startedAt', 'finishedAt', 'error', 'result', 'secret', 'endAudited'] as const;

type Item = Record<string, unknown>;

const ttlOf = (iso: string) => Math.floor(Date.parse(iso) / 1000) + KEEP_SECONDS;

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

export class DynamoJobStore implements JobStore {
  private readonly writeIf: ConditionalWriter;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.writeIf = conditionalWriter(client, table);
  }

  async createJob(job: JobRecord): Promise<void> {
    await this.writeIf({ put: { Item: toItem(job), ConditionExpression: 'attribute_not_exists(pk)' } }, () => new AlreadyExists(`job ${job.id} exists`));
  }

  async getJob(id: string): Promise<JobRecord | null> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: jobKey(id), ConsistentRead: true }));
    return Item ? toJob(Item) : null;
  }

  async listEventJobs(eventId: string, limit: number): Promise<JobRecord[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'byEvent',
        KeyConditionExpression: 'gsi1pk = :jobs',
        ExpressionAttributeValues: { ':jobs': `JOBS#${eventId}` },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (Items ?? []).map(toJob);
  }

  /** One conditional update returning the job after it, or null when the condition failed. */
  private async update(id: string, expression: string, condition: string, values: Record<string, unknown>) {
    const item = await this.writeIf({
      update: {
        Key: jobKey(id),
        UpdateExpression: expression,
        ConditionExpression: `attribute_exists(pk) AND ${condition}`,
        ExpressionAttributeNames: namesUsed(`${expression} ${condition}`),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      },
    });
    return item ? toJob(item) : null;
  }

  private async existing(id: string): Promise<JobRecord> {
    const job = await this.getJob(id);
    if (!job) throw new NotFound(`job ${id}`);
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

  async countJobCodes(args: { eventId: string; jobId: string; done: number }): Promise<void> {
    const names = { '#counted': countedName(args.jobId) };
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const { Item } = await this.client.send(
        new GetCommand({ TableName: this.table, Key: eventKey(args.eventId), ProjectionExpression: '#counted, deleted', ExpressionAttributeNames: names, ConsistentRead: true }),
      );
      if (!Item || Item.deleted) return;
      const counted = (Item[names['#counted']] as number | undefined) ?? 0;
      if (args.done <= counted) return;
      const written = await this.writeIf({
        update: {
          Key: eventKey(args.eventId),
          UpdateExpression: 'SET #counted = :done ADD tokenCount :delta',
          ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND ${counted === 0 ? 'attribute_not_exists(#counted)' : '#counted = :counted'}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':done': args.done, ':delta': args.done - counted, ...(counted === 0 ? {} : { ':counted': counted }) },
        },
      });
      if (written) return;
    }
    throw new Contended(`event ${args.eventId}: could not count the codes of job ${args.jobId}`);
  }
}
