/**
 * verify:shipped: what `cdk deploy` ships, run here before anyone deploys it (docs/verify-shipped.md).
 * The synthesized template is deployed onto local stand-ins (DynamoDB Local, the embedded S3, a
 * Secrets Manager, KeyValueStore and CloudFront API of our own behind one AWS endpoint that holds
 * every call to the caller's IAM policies); the Lambda bundles of cdk.out run in fresh processes,
 * the HTTP API and the distribution are served as the template configures them, the CloudFront
 * Function's inlined code runs under njs and Node, and the ingest image is built from its Dockerfile
 * and run with its task definition. Each step prints what it checked.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { freePort } from '../../local/free-port';
import { startStripeFake, type StripeFake } from '../../local/stripe-fake';
import { startDynamoDbLocal } from '../../harness/dynamodb-local';
import { publish } from '../support/ingest';
import { runUnderNjs } from '../support/njs';
import { HttpApiStandIn } from '../support/shipped/api-gateway';
import { synthesizeFirstDeploy, type CloudAssembly } from '../support/shipped/cloud-assembly';
import { DistributionStandIn } from '../support/shipped/distribution';
import { scheduledEvent, serviceMayInvoke } from '../support/shipped/event-sources';
import { matchesPattern } from '../support/shipped/iam';
import { buildImage, startIngestTask } from '../support/shipped/ingest-task';
import { KVS_LIMITS } from '../support/shipped/key-value-store';
import { deployLocally, type LocalStack } from '../support/shipped/local-stack';
import { CHAPTERS, SHIPPED_STRIPE, STORIES } from '../support/shipped/story';
import { checkStoryCoverage, runStories, StoryContext } from '../support/shipped/story-runner';

/** CloudFront Functions: at most 10 KB of code (CloudFront quotas), runtime cloudfront-js-2.0 for KeyValueStores. */
const FUNCTION_CODE_BYTES = 10 * 1024;
const ADMIN_PASSWORD = 'verify shipped owner password';

let assembly: CloudAssembly;
let dynamo: { endpoint: string; close(): Promise<void> };
let s3: EmbeddedS3;
let stack: LocalStack;
let gateway: HttpApiStandIn;
let distribution: DistributionStandIn;
let stripe: StripeFake;
let s: StoryContext;
/** Set once the API story went through: the steps after it build on what it made. */
let storyDone = false;
const started = Date.now();

/** Fails with every entry, in full, when `found` is not empty. */
function none(found: string[], what: string): void {
  if (found.length) throw new Error(`${what}:\n${found.join('\n')}`);
}

/** The last errors the functions logged: what a 500 of the function's own making hides from its caller. */
function functionErrors(): string[] {
  return [...stack.lambda.functions.values()].flatMap((fn) => fn.logs.filter((line) => /"level":"ERROR"/.test(line)).slice(-3).map((line) => `${fn.id}: ${line}`));
}

function report(step: string, lines: string[]): void {
  console.log([`verify:shipped, ${step}`, ...lines.map((line) => `  ${line}`)].join('\n'));
}

beforeAll(async () => {
  [assembly, dynamo, s3] = await Promise.all([synthesizeFirstDeploy(), startDynamoDbLocal(), startEmbeddedS3({ buckets: [] })]);
  // Stripe's API, stood in for: the functions' SDK is sent there; its deliveries go to the site's webhook, as Stripe's would.
  const stripePort = await freePort('127.0.0.1');
  stack = await deployLocally(assembly, { dynamodb: dynamo.endpoint, s3: s3.endpoint, stripeApi: `http://127.0.0.1:${stripePort}` });
  const apis = stack.values.idsOf('AWS::ApiGatewayV2::Api');
  const distributions = stack.values.idsOf('AWS::CloudFront::Distribution');
  if (apis.length !== 1 || distributions.length !== 1) throw new Error(`verify:shipped serves one HTTP API and one distribution; the template has ${apis.length} and ${distributions.length}`);
  gateway = new HttpApiStandIn(stack, apis[0]!);
  await gateway.start();
  distribution = new DistributionStandIn(stack, distributions[0]!, new Map([[gateway.domainName, gateway.url]]));
  await distribution.start();
  stripe = await startStripeFake({ port: stripePort, ...SHIPPED_STRIPE, webhookUrl: `${distribution.url}/api/webhooks/stripe` });
  s = new StoryContext(stack, gateway, distribution, ADMIN_PASSWORD, stripe);
  // The operator's step after the first deploy (docs/deploy.md): the password, into the secret the output names.
  await s.operator('set-admin-password.ts', [s.output('AdminSecretArn')], { ADMIN_PASSWORD });
}, 300_000);

afterAll(async () => {
  await stripe?.close();
  await gateway?.close();
  await distribution?.close();
  await stack?.close();
  await Promise.all([dynamo?.close(), s3?.close()]);
  assembly?.remove();
  report('time', [`${((Date.now() - started) / 1000).toFixed(1)} s in all`]);
});

/** The entry playlist, its first media playlist and that playlist's first segment through the distribution; what each answered. */
async function mediaPlaylistAndSegment(base: string, token: string): Promise<string> {
  const entry = await s.fetch(`${base}index.m3u8`, { bearer: token });
  expect(entry.status, entry.text).toBe(200);
  const first = (text: string) => text.split('\n').find((line) => line.trim() && !line.startsWith('#'))!.trim();
  const variant = entry.text.includes('#EXT-X-STREAM-INF') ? first(entry.text) : 'index.m3u8';
  const playlist = await s.fetch(new URL(variant, `${base}index.m3u8`).href, { bearer: token });
  expect(playlist.status, playlist.text).toBe(200);
  const segment = await s.fetch(new URL(first(playlist.text), new URL(variant, `${base}index.m3u8`)).href, { bearer: token });
  expect(segment.status).toBe(200);
  return `index.m3u8 200, ${variant} 200, ${first(playlist.text)} 200 (${segment.text.length} bytes)`;
}

describe('verify:shipped', () => {
  it('synthesizes the stack as a first deploy does and deploys it in an order CloudFormation may pick', async () => {
    const types = new Set(Object.values(assembly.template.Resources).map((r) => r.Type));
    await stack.settle();
    none(stack.problems, 'the deploy');
    expect(stack.customResources.length).toBeGreaterThan(0);
    report('1. synth and deploy', [
      `${Object.keys(assembly.template.Resources).length} resources of ${types.size} types; ${stack.lambda.functions.size} of this project's functions, ${stack.lambda.notRun.size} CDK handlers not run`,
      ...stack.customResources.map((line) => `custom resource ${line.replace(/arn:aws:secretsmanager:[^"]+/g, '<secret arn>')}`),
      ...stack.queues.map((queue) => `queue ${queue.id}: ${queue.summary}`),
      `no local effect: ${[...stack.noLocalEffect].map(([type, n]) => `${type} ×${n}`).join(', ')}`,
    ]);
  });

  it('creates every table from its AWS::DynamoDB::Table resource', () => {
    expect(stack.tables.length).toBe(stack.values.idsOf('AWS::DynamoDB::Table').length);
    expect(stack.tables.length).toBeGreaterThan(0);
    report('2. tables', stack.tables.map((table) => `${table.id}: ${table.summary}`));
  });

  it('runs each bundle of cdk.out in its own process with only the environment the template gives it', () => {
    const functions = [...stack.lambda.functions.values()];
    expect(functions.length).toBeGreaterThan(0);
    none(
      functions.filter((fn) => !stack.iam.trustedServices(fn.caller.roleId!).includes('lambda.amazonaws.com')).map((fn) => `${fn.id}: its role does not trust lambda.amazonaws.com`),
      'roles Lambda cannot assume',
    );
    report('3. bundles', [
      ...functions.map((fn) => `${fn.id} (${fn.description}): env ${Object.keys(fn.environment).sort().join(', ')}; ${fn.timeoutSeconds} s, ${fn.memoryMb} MB`),
      ...[...stack.lambda.notRun.values()].map((line) => `not run: ${line}`),
    ]);
  });

  it('has a story for every route of the template, and no story without one', () => {
    checkStoryCoverage(s, STORIES);
  });

  /** Chapters run in order, each on what the ones before made; a chapter after a failed one is not run. */
  let chaptersDone = 0;
  const chapterFailure = (error: Error) =>
    // What the functions, API Gateway and CloudFront said about it (a denied AWS call, a function that threw).
    new Error([error.message, ...gateway.problems, ...distribution.problems, ...stack.problems, ...stack.endpoint.problems, ...functionErrors()].join('\n\n'));
  for (const [index, chapter] of CHAPTERS.entries()) {
    it(`drives the API story through the template's routes and integrations: ${chapter.name}`, async () => {
      expect(chaptersDone, 'the chapters before this one went through (see their failure)').toBe(index);
      await runStories(s, chapter.stories).catch((error: Error) => {
        throw chapterFailure(error);
      });
      chaptersDone++;
    }, 90_000);
  }

  it('settles the API story: no problem anywhere, and what each function and trigger did', async () => {
    expect(chaptersDone, 'every chapter of the API story went through (see their failure)').toBe(CHAPTERS.length);
    await stack.settle();
    none([...gateway.problems, ...distribution.problems, ...stack.problems], 'API Gateway, CloudFront and the functions');
    storyDone = true;
    const routes = gateway.routes.length;
    const requests = gateway.routes.reduce((sum, route) => sum + route.statuses.length, 0);
    const byFunction = new Map<string, number>();
    for (const route of gateway.routes) byFunction.set(route.functionId, (byFunction.get(route.functionId) ?? 0) + 1);
    const sources = [
      ...stack.streamSources.map((source) => `${source.functionId} from ${source.id}: ${source.delivered} records in ${source.batches} batches, ${source.filteredOut} filtered out`),
      ...stack.queueSources.map(
        (source) =>
          `${source.functionId} from ${source.id}: ${source.delivered} messages in ${source.batches} batches of at most ${source.batchSize}, ${source.returned} given back (${source.reportsItemFailures ? 'partial batch responses' : 'whole batches'}; at most ${source.maxConcurrency ?? 'unlimited'} at once in AWS)`,
      ),
    ];
    expect(routes).toBeGreaterThan(0);
    report('4. API story', [
      `${routes} routes (payload ${[...new Set(gateway.routes.map((r) => r.payloadFormat))].join(', ')}), each with a story, in ${CHAPTERS.length} chapters; ${requests} requests through API Gateway, ${s.edgeCases.length} at the edge`,
      ...[...byFunction].map(([fn, n]) => `${fn}: ${n} routes, ${stack.lambda.get(fn).invocations} invocations, ${stack.lambda.get(fn).coldStarts} cold starts`),
      ...sources,
    ]);
  }, 60_000);

  it('runs every schedule, and invokes every function of the project', async () => {
    const lines: string[] = [];
    for (const ruleId of stack.values.idsOf('AWS::Events::Rule')) {
      const { targets, ruleArn, schedule } = scheduledEvent(stack.values, ruleId);
      for (const target of targets) {
        const functionId = stack.lambda.idOf(target.functionArn)!;
        expect(await serviceMayInvoke(stack.iam, 'events.amazonaws.com', target.functionArn, ruleArn), `${ruleId} may invoke ${functionId}`).toBe(true);
        const result = await stack.lambda.invoke(functionId, target.event);
        lines.push(`${ruleId} (${schedule}) → ${functionId}: ${JSON.stringify(result)}`);
      }
    }
    const never = [...stack.lambda.functions.values()].filter((fn) => fn.invocations === 0).map((fn) => fn.id);
    none(never, 'functions nothing in verify:shipped invoked (add a story or a trigger that reaches them)');
    report('4. schedules', lines.length ? lines : ['none in the template']);
  });

  it('runs the CloudFront Functions of the template under njs and Node against the KeyValueStore edge-sync filled', async () => {
    const lines: string[] = [];
    for (const path of ['/', '/admin/', '/admin']) {
      const page = await s.edge(`the page ${path}`, `${s.siteOrigin}${path}`, 'pass');
      expect(page.status, `${path} through the distribution: ${page.text.slice(0, 300)}`).toBe(200);
      expect(String(page.headers['content-type']), path).toContain('text/html');
    }
    lines.push('the pages /, /admin/ and /admin through the distribution: 200 text/html (its directory index, the web bucket as deployed)');
    for (const id of stack.values.idsOf('AWS::CloudFront::Function')) {
      const p = stack.values.resolve(stack.values.resource(id).Properties);
      const code = String(p.FunctionCode);
      const bytes = Buffer.byteLength(code);
      expect(p.FunctionConfig.Runtime, id).toBe('cloudfront-js-2.0');
      expect(bytes, `${id}: code over CloudFront's 10 KB`).toBeLessThanOrEqual(FUNCTION_CODE_BYTES);
      const cases = s.edgeCases.filter((c) => c.functionId === id);
      const outcomes = await runUnderNjs(code, cases);
      cases.forEach((c, i) => expect(outcomes[i], `${id} under njs: ${c.name}`).toEqual(c.outcome));
      lines.push(`${id}: ${p.FunctionConfig.Runtime}, ${bytes} bytes (${Math.round((bytes / FUNCTION_CODE_BYTES) * 100)} % of 10 KB), ${cases.length} requests the same under njs and Node`);
    }
    const written = stack.endpoint.keyValueStores.written;
    const keyBytes = Math.max(...[...written.keys()].map((key) => Buffer.byteLength(key)));
    const valueBytes = Math.max(...written.values());
    expect(written.size).toBeGreaterThan(0);
    expect(keyBytes).toBeLessThanOrEqual(KVS_LIMITS.keyBytes);
    expect(valueBytes).toBeLessThanOrEqual(KVS_LIMITS.valueBytes);
    const prefixes = [...new Set([...written.keys()].map((key) => key.split(':')[0]))];
    lines.push(`KeyValueStore: ${written.size} keys written (${prefixes.map((p) => `${p}:`).join(' ')}), largest key ${keyBytes} of ${KVS_LIMITS.keyBytes} bytes, largest value ${valueBytes} of ${KVS_LIMITS.valueBytes}`);
    report('6. CloudFront Functions', lines);
  }, 60_000);

  it('builds the ingest image from its Dockerfile and runs it with the task definition: a publish becomes HLS the edge serves', async () => {
    expect(storyDone, 'the API story went through (see its failure)').toBe(true);
    const taskId = stack.values.idsOf('AWS::ECS::TaskDefinition')[0]!;
    const task = stack.values.resolve(stack.values.resource(taskId).Properties);
    const imageRef = String(task.ContainerDefinitions[0].Image);
    const { context, dockerfile, platform } = assembly.imageAsset(imageRef.slice(imageRef.lastIndexOf(':') + 1));
    const architecture = ({ X86_64: 'linux/amd64', ARM64: 'linux/arm64' } as Record<string, string>)[task.RuntimePlatform?.CpuArchitecture ?? 'X86_64'];
    expect(platform ?? 'linux/amd64', 'the image is built for the CPU the task definition asks Fargate for').toBe(architecture);
    for (const role of [task.TaskRoleArn, task.ExecutionRoleArn]) {
      expect(stack.iam.trustedServices(stack.values.logicalIdOf(role)!), `${role} may be assumed by ECS tasks`).toContain('ecs-tasks.amazonaws.com');
    }
    const image = await buildImage(context, dockerfile);
    const localUrl = (url: string) => url.replace(`https://${gateway.domainName}`, gateway.url);
    const ingest = await startIngestTask(stack, taskId, image.final, localUrl);
    const hits = (key: string) => gateway.routes.find((route) => route.key === key)!.statuses.length;
    const before = { auth: hits('POST /api/internal/rtmp-auth'), lease: hits('POST /api/internal/streams/{eventId}/lease') };
    const code = s.state.codes[5].code;
    try {
      expect(await ingest.healthCheck(), 'the task definition\'s health check').toBe(0);
      const publisher = publish(`${ingest.rtmpUrl}/${s.state.streamKey}`);
      const bucket = task.ContainerDefinitions[0].Environment.find((e: { Name: string }) => e.Name === 'MEDIA_BUCKET').Value as string;
      const storage = stack.deployerClient((config) => new S3Client({ ...config, forcePathStyle: true }));
      let keys: string[] = [];
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
        const listed = await storage.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `streams/${s.state.eventId}/` }));
        keys = (listed.Contents ?? []).map((o) => o.Key!);
        if (keys.some((k) => k.endsWith('.ts') || k.endsWith('.m4s')) && keys.some((k) => k.endsWith('.m3u8'))) break;
        if (!publisher.running()) break;
      }
      expect(keys.length, `HLS in the media bucket; ingest said:\n${ingest.logs()}`).toBeGreaterThan(1);
      const viewer = s.expect(await s.site('POST', '/api/tokens/validate', { json: { code }, from: s.client() }), 200, 'validate for the show');
      const base = `${viewer.playbackBaseUrl}${viewer.streamPath}`;
      const media = await mediaPlaylistAndSegment(base, viewer.playbackToken);
      await publisher.stop();
      const stopped = await ingest.stop();
      expect(stopped.withinStopTimeout, 'stopped within the task definition\'s stopTimeout').toBe(true);
      expect(hits('POST /api/internal/rtmp-auth')).toBeGreaterThan(before.auth);
      expect(hits('POST /api/internal/streams/{eventId}/lease')).toBeGreaterThan(before.lease);
      storage.destroy();
      report('7. ingest task', [
        `image: ${image.build.stages} stages; ${image.build.steps.join('; ')}`,
        `command: ${ingest.command.map((arg) => arg.replace(/^.*\/stagedoor-image-[^/]+\/stage-\d+/, '')).join(' ')}`,
        `environment: ${Object.keys(ingest.environment).sort().join(', ')}`,
        `a publish: ${hits('POST /api/internal/rtmp-auth') - before.auth} RTMP callbacks, ${hits('POST /api/internal/streams/{eventId}/lease') - before.lease} lease calls; ${keys.length} HLS objects in the media bucket; through the distribution with a viewer's JWT: ${media}`,
        `stopped with ${stopped.signal ?? `exit ${stopped.code}`} within the stop timeout`,
      ]);
    } finally {
      await ingest.stop();
      image.remove();
    }
  }, 120_000);

  it('finalizes the recording of an ingest task that died mid-show, in the recording sweep (its S3 permissions)', async () => {
    expect(storyDone, 'the API story went through (see its failure)').toBe(true);
    // A task that took the lease and died never renews nor releases it: the sweep's next run after it ran out finalizes.
    const headers = { 'x-internal-api-key': await s.internalApiKey() };
    const lease = await s.api('POST', `/api/internal/streams/${s.state.eventId}/lease`, { json: { holder: 'a-task-that-died', action: 'acquire' }, headers });
    s.expect(lease, 200, 'the lease of a task about to die');
    const sweeps = stack.values.idsOf('AWS::Events::Rule').flatMap((ruleId) => scheduledEvent(stack.values, ruleId).targets);
    const sweep = sweeps.find((target) => stack.lambda.idOf(target.functionArn)?.startsWith('RecordingSweep'));
    expect(sweep, 'a schedule that runs the recording sweep').toBeDefined();
    const sweepId = stack.lambda.idOf(sweep!.functionArn)!;
    const s3Calls = (caller: string) => stack.endpoint.calls.filter((call) => call.caller.name === caller && call.service === 's3');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(lease.body.expiresAt) - Date.now() + 1_000)));
    // Status reads in between only read: the public function never touches the bucket.
    s.expect(await s.site('GET', `/api/events/${s.state.eventId}/status`), 200, 'status');
    await stack.lambda.invoke(sweepId, sweep!.event);
    const operations = s3Calls(sweepId).map((call) => call.operation);
    expect(operations).toContain('ListObjectsV2');
    expect(operations).toContain('GetObject');
    expect(operations).toContain('PutObject');
    const publicId = gateway.routes.find((route) => route.key === 'GET /api/events/{id}/status')!.functionId;
    expect(s3Calls(publicId), 'S3 calls of the public function').toEqual([]);
    report('7b. recording sweep', [`${sweepId}, on its schedule after the lease ran out: ${operations.length} S3 calls (${[...new Set(operations)].join(', ')}); the public function: none`]);
  }, 40_000);

  it('holds every AWS call of the run to its caller\'s IAM policies (and lists grants nobody used)', () => {
    const calls = stack.endpoint.calls.filter((call) => call.caller.roleId || call.caller.service);
    const denied = calls.flatMap((call) =>
      call.checks.filter((check) => !check.decision.allowed).map((check) => `${call.caller.name} was denied ${check.authorization.action} on ${check.authorization.resource} (${check.decision.result})`),
    );
    none(stack.endpoint.problems, 'AWS calls no stand-in served');
    none(denied, 'AWS calls IAM would refuse in AWS');
    expect(calls.length).toBeGreaterThan(0);
    const lines: string[] = [];
    const roles = [...new Set(calls.map((call) => call.caller.roleId).filter(Boolean))] as string[];
    for (const roleId of roles) {
      const mine = calls.filter((call) => call.caller.roleId === roleId);
      const actions = [
        ...new Set(
          mine.flatMap((call) =>
            call.checks.map(({ authorization }) => `${authorization.action}${Object.keys(authorization.context).length ? ` [${Object.keys(authorization.context).join(', ')}]` : ''}`),
          ),
        ),
      ].sort();
      const managed = stack.iam.managedPolicies(roleId);
      lines.push(`${mine[0]!.caller.name}: ${mine.length} calls, ${actions.length} actions (${actions.join(', ')}), all allowed${managed.length ? `; managed policies not evaluated (for the platform, not the code): ${managed.join(', ')}` : ''}`);
      for (const grant of stack.iam.grants(roleId)) {
        const used = mine.flatMap((call) => call.checks).filter((check) => check.decision.statements.includes(grant.id));
        const unusedActions = grant.actions.filter((action) => !used.some((check) => matchesPattern(action, check.authorization.action, true)));
        const unusedResources = grant.resources.filter((resource) => !used.some((check) => matchesPattern(resource, check.authorization.resource)));
        if (unusedActions.length) lines.push(`  granted, never used: ${unusedActions.join(', ')} (${grant.id})`);
        if (unusedResources.length && used.length) lines.push(`  resources granted, never used: ${unusedResources.join(', ')} (${grant.id})`);
      }
    }
    const services = calls.filter((call) => call.caller.service);
    lines.push(`service principals (bucket policies): ${services.length} calls by ${[...new Set(services.map((c) => c.caller.name))].join(', ') || 'none'}`);
    report('5. IAM', lines);
  });

  it('proves the packages the bundles leave out unreachable on Lambda', async () => {
    const lines: string[] = [];
    let seenWithoutCredentials = 0;
    for (const fn of stack.lambda.functions.values()) {
      // SnapStart hands credentials over HTTP (AWS_CONTAINER_CREDENTIALS_FULL_URI), through a provider the bundles leave out.
      expect(stack.values.resolve(stack.values.resource(fn.id).Properties?.SnapStart)?.ApplyOn ?? 'None', `${fn.id}: SnapStart`).toBe('None');
      none([...fn.leftOutLoaded], `${fn.id} loaded packages its bundle does not contain (they are not in Lambda)`);
      const withoutCredentials = await stack.lambda.leftOutWithoutCredentials(fn.id, fn.firstEvent);
      seenWithoutCredentials += withoutCredentials.length;
      none(withoutCredentials.filter((name) => !fn.leftOutDeclared.includes(name)), `${fn.id} loads packages it does not import lazily`);
      lines.push(`${fn.id}: leaves out ${fn.leftOutDeclared.length} (${fn.leftOutDeclared.join(', ')}); loaded in ${fn.invocations} invocations with Lambda's credentials: none; without them: ${withoutCredentials.join(', ') || 'none'}`);
    }
    // The negative control: without the role's credentials the SDK goes on to the providers left out, and the host sees it.
    expect(seenWithoutCredentials).toBeGreaterThan(0);
    report('3. left-out packages', lines);
  }, 60_000);
});
