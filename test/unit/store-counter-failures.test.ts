import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { logger } from '../../functions/adapters/telemetry';

/**
 * Counter writes are best effort: a lost one (throttling, which the stand-ins never do) must not
 * fail the viewer's request, and must not vanish either: one warning and one CloudWatch metric
 * (embedded metric format) per lost write, printed to the function's log.
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const { counters } = dynamoStores(DynamoDBDocumentClient.from(client), 't');
const at = '2026-11-21T12:00:00.000Z';

let printed: string[];
let warnings: { mock: { calls: unknown[][] } };
beforeEach(() => {
  dynamo.reset();
  printed = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  warnings = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());
afterAll(() => dynamo.restore());

/** The metric lines (EMF) the function printed. */
const metrics = () => printed.flatMap((chunk) => chunk.split('\n')).filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);

describe('a counter write that DynamoDB refuses', () => {
  it('resolves, and is logged once with a CounterWriteFailed metric', async () => {
    dynamo.on(UpdateCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    await expect(counters.countPresence({ eventId: 'e1', seed: 'ABC', at, delta: 1 })).resolves.toBeUndefined();
    expect(warnings.mock.calls).toEqual([
      // As the adapter boundary words it (dynamo-failures.ts), the SDK's error its cause.
      ['counter write failed', { counter: 'presence', eventId: 'e1', delta: 1, error: expect.objectContaining({ name: 'StoreUnavailable', cause: expect.objectContaining({ name: 'ProvisionedThroughputExceededException' }) }) }],
    ]);
    const [metric, ...rest] = metrics();
    expect(rest).toEqual([]);
    expect(metric).toMatchObject({ CounterWriteFailed: 1, service: 'stagedoor' });
    expect(metric!._aws.CloudWatchMetrics).toEqual([
      { Namespace: 'Stagedoor', Dimensions: [['service']], Metrics: [{ Name: 'CounterWriteFailed', Unit: 'Count' }] },
    ]);
  });

  it('does the same for redemptions; a revocation count is exact, so its failure is the caller\'s to retry', async () => {
    dynamo.on(UpdateCommand).rejects(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await counters.countRedemption({ eventId: 'e1', code: 'ABC', delta: 1 });
    await expect(counters.countRevocation({ eventId: 'e1', code: 'ABC', counted: true, version: 0 })).rejects.toMatchObject({ name: 'StoreUnavailable' });
    expect(warnings.mock.calls.map(([message, fields]) => [message, (fields as { counter: string }).counter, (fields as { delta: number }).delta])).toEqual([
      ['counter write failed', 'redeemed', 1],
    ]);
    expect(metrics().filter((line) => line.CounterWriteFailed === 1)).toHaveLength(1);
  });
});
