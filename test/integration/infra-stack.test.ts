import { existsSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routeTable, type Area } from '../../functions/http/route-table';
import { staffTableSchema, tableSchema } from '../../functions/adapters/table-schema';
import { ITEM_CREATORS, STAFF_TABLE_ACCESS } from '../../infra/lib/constructs/api';
import { API_CONTENT_SECURITY_POLICY, HSTS_MAX_AGE_SECONDS, pageContentSecurityPolicy } from '../../web/security-headers';
import { API_MAX_SHARED_CACHE_SECONDS, MEDIA_GUARD_FILE, DIRECTORY_INDEX_FILE, WAF_SIGN_IN_REQUESTS_PER_5_MIN } from '../../infra/lib/constructs/delivery';
import { STATUS_SHARED_CACHE_SECONDS } from '../../functions/routes/public';
import { LAMBDA_BUNDLING } from '../../infra/lib/lambda-bundling';
import { JOB_MAX_RECEIVES, JOB_WORKER } from '../../functions/domain/jobs';
import { EXPORT_FILE_DAYS } from '../../functions/domain/jobs';
import { referencesIn } from '../support/shipped/stack-values';
import { idsOf, synthesize, type Synthesized } from '../support/synth';

let s: Synthesized;
beforeAll(async () => {
  s = await synthesize();
}, 300_000);
// The assembly holds every bundle and the deployment layer (tens of MB): do not leave it in /tmp.
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

const resource = (id: string) => s.json.Resources[id]!;
const only = (ids: string[]) => {
  expect(ids).toHaveLength(1);
  return ids[0]!;
};

/** Functions besides the API's areas, by the start of their description. */
const OTHER_FUNCTIONS = {
  'edge-sync': 'Stagedoor edge-sync',
  'recording-sweep': 'Stagedoor recording sweep',
  'audience-recorder': 'Stagedoor audience recorder',
  'job-worker': 'Stagedoor jobs:',
  mailer: 'Stagedoor mailer',
  'checkout-sweep': 'Stagedoor checkout sweep',
} as const;
type Runtime = Area | keyof typeof OTHER_FUNCTIONS;
/** Every function the stack runs for the product (not CDK's own helpers). */
const RUNTIMES: Runtime[] = ['public', 'admin', 'internal', 'rtmp-callback', 'edge-sync', 'recording-sweep', 'audience-recorder', 'job-worker', 'mailer', 'checkout-sweep'];

/** The Lambda function of an API area, or of edge-sync or the recording sweep, found by its description. */
const functionOf = (area: Runtime) =>
  only(
    idsOf(s.json, 'AWS::Lambda::Function', (p) =>
      area in OTHER_FUNCTIONS
        ? String(p.Description).startsWith(OTHER_FUNCTIONS[area as keyof typeof OTHER_FUNCTIONS])
        : p.Description === `Stagedoor API: ${area} routes`,
    ),
  );
const roleOf = (functionId: string) => resource(functionId).Properties.Role['Fn::GetAtt'][0] as string;
const statementsOf = (roleId: string): any[] =>
  idsOf(s.json, 'AWS::IAM::Policy', (p) => (p.Roles ?? []).some((role: any) => role.Ref === roleId)).flatMap(
    (id) => resource(id).Properties.PolicyDocument.Statement,
  );
const actionsOf = (statement: any): string[] => [statement.Action].flat();
/** The main table (with the indexes) and the staff table (none). */
const tableId = () => only(idsOf(s.json, 'AWS::DynamoDB::Table', (p) => p.GlobalSecondaryIndexes !== undefined));
const staffTableId = () => only(idsOf(s.json, 'AWS::DynamoDB::Table', (p) => p.GlobalSecondaryIndexes === undefined));
const distributionId = () => only(idsOf(s.json, 'AWS::CloudFront::Distribution'));
const distributionConfig = () => resource(distributionId()).Properties.DistributionConfig;
const behavior = (pattern: string) => distributionConfig().CacheBehaviors.find((b: any) => b.PathPattern === pattern);
const originOf = (originId: string) => distributionConfig().Origins.find((o: any) => o.Id === originId);

const AREAS: Area[] = ['public', 'admin', 'internal', 'rtmp-callback'];

/** The shared secret (every function) and the admin secret (the admin function only). */
const sharedSecretId = () => only(idsOf(s.json, 'AWS::SecretsManager::Secret', (p) => String(p.Description).startsWith('Stagedoor: ')));
const commerceSecretId = () => only(idsOf(s.json, 'AWS::SecretsManager::Secret', (p) => String(p.Description).startsWith('Stagedoor commerce:')));
/** The exports bucket, by its lifecycle rule's prefix. */
const exportsBucketId = () => only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('exports/')));
/** What the exports bucket's files may be touched with: by the admin function and the job worker, nobody else. */
const exportFileStatement = () => ({
  Effect: 'Allow',
  Action: ['s3:PutObject', 's3:GetObject'],
  Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [exportsBucketId(), 'Arn'] }, '/exports/*']] },
});
const adminSecretId = () => only(idsOf(s.json, 'AWS::SecretsManager::Secret', (p) => String(p.Description).startsWith('Stagedoor admin:')));
/** The seeding custom resource of one step (infra/runtime/seed-secrets.ts). */
const seedId = (step: 'fill' | 'retire') => only(idsOf(s.json, 'AWS::CloudFormation::CustomResource', (p) => p.Step === step && p.SecretArn !== undefined));
/** The staff move's custom resource of one step (infra/runtime/move-staff-items.ts). */
const moveId = (step: 'copy' | 'retire') => only(idsOf(s.json, 'AWS::CloudFormation::CustomResource', (p) => p.Step === step && p.StaffTableName !== undefined));
/** Every resource `id` waits for, directly or not (DependsOn, Ref, GetAtt, Sub). */
function dependenciesOf(id: string, into = new Set<string>()): Set<string> {
  const res = resource(id);
  for (const dep of [...referencesIn(res.Properties), ...[res.DependsOn ?? []].flat()]) {
    if (!(dep in s.json.Resources) || into.has(dep)) continue;
    into.add(dep);
    dependenciesOf(dep, into);
  }
  return into;
}

describe('data', () => {
  it('builds the table from table-schema.ts: keys, indexes, TTL, stream, on-demand, PITR, deletion protection', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      GlobalSecondaryIndexes: tableSchema.indexes.map((index) =>
        Match.objectLike({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            ...('sortKey' in index ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' }] : []),
          ],
          Projection:
            index.projection === 'ALL'
              ? { ProjectionType: 'ALL' }
              : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] },
        }),
      ),
    });
    expect(resource(tableId())).toMatchObject({ DeletionPolicy: 'Retain' });
  });

  it('keeps staff accounts in a table of their own: retained, PITR, deletion protection, TTL, no stream, no index', () => {
    expect(resource(staffTableId())).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: staffTableSchema.partitionKey, KeyType: 'HASH' },
          { AttributeName: staffTableSchema.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        TimeToLiveSpecification: { AttributeName: staffTableSchema.ttlAttribute, Enabled: true },
      },
    });
    expect(resource(staffTableId()).Properties.StreamSpecification).toBeUndefined();
  });

  it('moves an older stack\'s staff items: copied before the admin function changes, deleted from the main table last', () => {
    for (const step of ['copy', 'retire'] as const) {
      expect(resource(moveId(step)).Properties).toMatchObject({
        TableName: { Ref: tableId() },
        StaffTableName: { Ref: staffTableId() },
        AdminSecretArn: { Ref: adminSecretId() },
        Step: step,
      });
    }
    expect([resource(functionOf('admin')).DependsOn].flat()).toContain(moveId('copy'));
    // It seals with the key the seeding makes.
    expect(dependenciesOf(moveId('copy'))).toContain(seedId('fill'));
    const retire = moveId('retire');
    const before = dependenciesOf(retire);
    for (const area of [...AREAS, 'edge-sync' as const]) expect(before, area).toContain(functionOf(area));
    const notBefore = Object.keys(s.json.Resources).filter(
      (id) => id !== retire && !before.has(id) && resource(id).Type !== 'AWS::CDK::Metadata' && !resource(id).Condition,
    );
    expect(notBefore).toEqual([]);
  });

  it('keeps the shared secret defined as older stacks created it (a changed generator would regenerate its value)', () => {
    expect(resource(sharedSecretId())).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        Description: 'Stagedoor: playbackSigningKeys, adminPasswordHash, adminSessionSecret, internalApiKey, originVerifySecret',
        GenerateSecretString: { SecretStringTemplate: '{}', GenerateStringKey: 'adminSessionSecret', PasswordLength: 64, ExcludePunctuation: true },
      },
    });
    expect(Object.keys(resource(sharedSecretId()).Properties).sort()).toEqual(['Description', 'GenerateSecretString']);
  });

  it('keeps secret values out of the template: the admin secret starts as an empty JSON object, the seeding fills both', () => {
    expect(resource(adminSecretId())).toMatchObject({ DeletionPolicy: 'Retain', Properties: { SecretString: '{}' } });
    // No other literal value anywhere.
    expect(JSON.stringify(s.json).match(/"SecretString"\s*:\s*"[^"]*"/g)).toEqual(['"SecretString":"{}"']);
    for (const step of ['fill', 'retire'] as const) {
      expect(resource(seedId(step)).Properties).toMatchObject({ SecretArn: { Ref: sharedSecretId() }, AdminSecretArn: { Ref: adminSecretId() }, Step: step });
    }
    expect(idsOf(s.json, 'AWS::CloudFormation::CustomResource', (p) => p.SecretArn !== undefined)).toHaveLength(2);
  });

  it('takes the admin fields out of the shared secret last: after the copy, every function and every other resource', () => {
    const retire = seedId('retire');
    const before = dependenciesOf(retire);
    expect(before).toContain(seedId('fill'));
    for (const area of [...AREAS, 'edge-sync' as const]) expect(before, area).toContain(functionOf(area));
    // Nothing is left to fail after it (a rollback would bring back functions that read the admin fields there),
    // but what exists only under a condition: a DependsOn on it would fail the deploy when it is off.
    const notBefore = Object.keys(s.json.Resources).filter(
      (id) => id !== retire && id !== moveId('retire') && !before.has(id) && resource(id).Type !== 'AWS::CDK::Metadata' && !resource(id).Condition,
    );
    expect(notBefore).toEqual([]);
    for (const dep of [resource(retire).DependsOn ?? []].flat()) expect(resource(dep).Condition, dep).toBeUndefined();
    // The admin function switches to the admin secret only once the copy is done.
    expect([resource(functionOf('admin')).DependsOn].flat()).toContain(seedId('fill'));
  });

  it('expires HLS in the media bucket and blocks public access on every bucket', () => {
    s.template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Prefix: 'streams/', ExpirationInDays: 30, Status: 'Enabled' })]) },
    });
    const buckets = idsOf(s.json, 'AWS::S3::Bucket');
    expect(buckets).toHaveLength(4);
    for (const id of buckets) {
      expect(resource(id).Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
  });

  it('gives every bucket a policy that denies plain HTTP and grants no public principal', () => {
    const policies = idsOf(s.json, 'AWS::S3::BucketPolicy');
    expect(policies).toHaveLength(4);
    for (const id of policies) {
      const statements: any[] = resource(id).Properties.PolicyDocument.Statement;
      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
      for (const statement of statements.filter((st) => st.Effect === 'Allow')) {
        expect(statement.Principal).not.toEqual('*');
        expect(statement.Principal).not.toEqual({ AWS: '*' });
      }
    }
  });

  it('keeps export files a few days in a bucket of their own, encrypted and logged, and aborts uploads a job left unfinished after a day', () => {
    expect(resource(exportsBucketId()).Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: expect.anything(), LogFilePrefix: 'exports-bucket/' },
      LifecycleConfiguration: {
        Rules: [
          { Prefix: 'exports/', ExpirationInDays: EXPORT_FILE_DAYS, Status: 'Enabled' },
          { AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
        ],
      },
    });
    expect(EXPORT_FILE_DAYS).toBeGreaterThanOrEqual(2);
    expect(EXPORT_FILE_DAYS).toBeLessThanOrEqual(7);
    expect(s.json.Outputs!.ExportBucket.Value).toEqual({ Ref: exportsBucketId() });
  });
});

describe('functions', () => {
  it('runs each area, edge-sync, the audience recorder, the recording sweep and the job worker as its own Node.js 22 function with its own role', () => {
    const ids = RUNTIMES.map(functionOf);
    const roles = new Set(ids.map(roleOf));
    expect(roles.size).toBe(RUNTIMES.length);
    for (const id of ids) {
      expect(resource(id).Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Handler: 'index.handler',
        Architectures: ['arm64'],
        LoggingConfig: expect.objectContaining({ LogFormat: 'JSON' }),
      });
    }
  });

  it('sets each function exactly the configuration its handler reads', () => {
    const env = (area: Runtime) => resource(functionOf(area)).Properties.Environment.Variables;
    const secretRef = { Ref: sharedSecretId() };
    for (const area of [...AREAS, 'edge-sync' as const]) {
      expect(env(area)).toMatchObject({
        TABLE_NAME: { Ref: tableId() },
        SECRETS_ARN: secretRef,
        POWERTOOLS_SERVICE_NAME: 'stagedoor',
        LOG_LEVEL: 'info',
      });
    }
    expect(env('public').PLAYBACK_BASE_URL).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId(), 'DomainName'] }]] });
    const nlb = only(idsOf(s.json, 'AWS::ElasticLoadBalancingV2::LoadBalancer'));
    expect(env('admin').INGEST_RTMP_URL).toEqual({ 'Fn::Join': ['', ['rtmp://', { 'Fn::GetAtt': [nlb, 'DNSName'] }, ':1935/live']] });
    expect(env('admin').INGEST_SRT_URL).toEqual({ 'Fn::Join': ['', ['srt://', { 'Fn::GetAtt': [nlb, 'DNSName'] }, ':9000']] });
    expect(env('admin').CLOUDFRONT_DISTRIBUTION_ID).toEqual({ Ref: distributionId() });
    expect(env('admin').SITE_ORIGIN).toEqual(env('public').PLAYBACK_BASE_URL);
    // A checkout's buyer returns to the site, not to API Gateway's host the request came in under.
    expect(env('public').SITE_ORIGIN).toEqual(env('public').PLAYBACK_BASE_URL);
    expect(env('edge-sync').KVS_ARN).toEqual({ 'Fn::GetAtt': [only(idsOf(s.json, 'AWS::CloudFront::KeyValueStore')), 'Arn'] });
    expect(env('admin').ADMIN_SECRETS_ARN).toEqual({ Ref: adminSecretId() });
    expect(env('admin').STAFF_TABLE_NAME).toEqual({ Ref: staffTableId() });
    expect(env('admin').EXPORT_BUCKET).toEqual({ Ref: exportsBucketId() });
    for (const area of ['public', 'internal', 'rtmp-callback', 'edge-sync', 'recording-sweep', 'audience-recorder', 'mailer'] as const) {
      expect(Object.keys(env(area)), area).not.toContain('EXPORT_BUCKET');
    }
    // What a handler does not read, it does not get: no other function is told where the admin secret is.
    expect(env('public').COMMERCE_SECRETS_ARN).toEqual({ Ref: commerceSecretId() });
    // The admin function's refunds go through Stripe.
    expect(env('admin').COMMERCE_SECRETS_ARN).toEqual({ Ref: commerceSecretId() });
    for (const area of ['internal', 'rtmp-callback', 'edge-sync', 'recording-sweep', 'mailer'] as const) {
      expect(Object.keys(env(area)), area).not.toContain('COMMERCE_SECRETS_ARN');
    }
    expect(env('mailer')).toEqual({
      TABLE_NAME: { Ref: tableId() },
      SITE_ORIGIN: env('public').PLAYBACK_BASE_URL,
      MAIL_FROM: { Ref: 'TicketEmailSender' },
      POWERTOOLS_SERVICE_NAME: 'stagedoor',
      LOG_LEVEL: 'info',
    });
    for (const area of ['public', 'internal', 'rtmp-callback', 'edge-sync'] as const) {
      expect(Object.keys(env(area)), area).not.toContain('ADMIN_SECRETS_ARN');
      expect(Object.keys(env(area)), area).not.toContain('STAFF_TABLE_NAME');
      expect(referencesIn(resource(functionOf(area)).Properties), area).not.toContain(adminSecretId());
    }
    for (const area of ['internal', 'rtmp-callback', 'edge-sync'] as const) {
      expect(Object.keys(env(area))).not.toContain('CLOUDFRONT_DISTRIBUTION_ID');
      expect(Object.keys(env(area))).not.toContain('PLAYBACK_BASE_URL');
    }
    // Only the recording sweep is told where the media bucket is; it needs no secret.
    const media = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('streams/')));
    expect(env('recording-sweep')).toEqual({ TABLE_NAME: { Ref: tableId() }, MEDIA_BUCKET: { Ref: media }, POWERTOOLS_SERVICE_NAME: 'stagedoor', LOG_LEVEL: 'info' });
    // The admin function alone: the watermark trace reads recording indexes and signs segment URLs.
    expect(env('admin').MEDIA_BUCKET).toEqual({ Ref: media });
    for (const area of [...AREAS.filter((area) => area !== 'admin'), 'edge-sync' as const]) expect(Object.keys(env(area)), area).not.toContain('MEDIA_BUCKET');
    // The audience recorder reads the table only (the session timeout is the API's default).
    expect(env('audience-recorder')).toEqual({ TABLE_NAME: { Ref: tableId() }, POWERTOOLS_SERVICE_NAME: 'stagedoor', LOG_LEVEL: 'info' });
  });

  it('alarms on errors and throttles of every function', () => {
    for (const area of RUNTIMES) {
      const fn = functionOf(area);
      for (const metric of ['Errors', 'Throttles']) {
        s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          MetricName: metric,
          Namespace: 'AWS/Lambda',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
          Threshold: 1,
        });
      }
    }
  });

  it('bundles each function into one ES module that loads in Node and exports handler', async () => {
    for (const area of RUNTIMES) {
      const key = resource(functionOf(area)).Properties.Code.S3Key as string;
      const bundle = join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
      expect(existsSync(bundle), area).toBe(true);
      // Loading runs module top level only (configuration is read on the first invocation).
      const module = await import(pathToFileURL(bundle).href);
      expect(typeof module.handler, area).toBe('function');
      // What the bundle leaves out may only be Node's own modules, or loaded lazily and listed as never needed on Lambda.
      const source = readFileSync(bundle, 'utf8');
      // Not after `:`, a quote, `-` or `/`: the public bundle holds ExpressionAttributeValues like `":from":n`, the mailer's SES routes like `"/mail-from",200`.
      const loadedAtStart = [...source.matchAll(/(?<![\w$:"'./-])from\s*"([^"]+)"/g)].map((m) => m[1]!).filter((name) => !isBuiltin(name));
      expect(loadedAtStart, area).toEqual([]);
      const loadedLazily = [...source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!).filter((name) => !isBuiltin(name));
      expect(loadedLazily.filter((name) => !(LAMBDA_BUNDLING.externalModules as readonly string[]).includes(name)), area).toEqual([]);
    }
  });

  it('keeps logs for a month in a log group per function', () => {
    for (const area of RUNTIMES) {
      const group = resource(functionOf(area)).Properties.LoggingConfig.LogGroup.Ref as string;
      expect(resource(group).Properties.RetentionInDays).toBe(30);
    }
  });
});

describe('least privilege', () => {
  const table = () => ({ 'Fn::GetAtt': [tableId(), 'Arn'] });
  const index = (name: string) => ({ 'Fn::Join': ['', [table(), `/index/${name}`]] });
  const secret = () => ({ Ref: sharedSecretId() });
  /** Roles with a policy statement that names the secret `id`, by what they may do with it. */
  const rolesGranted = (id: string) =>
    idsOf(s.json, 'AWS::IAM::Policy').flatMap((policy) =>
      (resource(policy).Properties.PolicyDocument.Statement as any[])
        .filter((statement) => referencesIn(statement.Resource).has(id))
        .flatMap((statement) => (resource(policy).Properties.Roles as any[]).map((role) => ({ role: role.Ref as string, actions: actionsOf(statement) }))),
    );

  it('grants each API function only the table actions its handler uses', () => {
    const expected: Record<Area, { actions: string[]; resources: unknown[] }> = {
      public: { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], resources: [table(), index('byLabel'), index('byTokenId'), index('codesByEvent')] },
      admin: {
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'],
        resources: [table(), index('byEvent'), index('byLabel'), index('byTokenId'), index('codesByEvent'), index('liveSessions')],
      },
      internal: {
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
        resources: [table(), index('accessFeed'), index('codesByEvent')],
      },
      'rtmp-callback': { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resources: [table()] },
    };
    for (const area of AREAS) {
      const statements = statementsOf(roleOf(functionOf(area)));
      const onTable = statements.filter((st) => actionsOf(st).some((a) => a.startsWith('dynamodb:')) && referencesIn(st.Resource).has(tableId()));
      const dynamo = onTable.filter((st) => st.Condition === undefined);
      expect(dynamo, area).toHaveLength(1);
      // The ingest's reports go to the audit log, the webhook's orders and codes to theirs: puts under those keys only.
      const creates = ITEM_CREATORS[area];
      expect(onTable.filter((st) => st.Condition !== undefined), area).toEqual(
        creates
          ? [
              expect.objectContaining({
                Action: 'dynamodb:PutItem',
                Resource: table(),
                Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': creates } },
              }),
            ]
          : [],
      );
      expect(actionsOf(dynamo[0]).sort(), area).toEqual([...expected[area].actions].sort());
      expect([dynamo[0].Resource].flat(), area).toEqual(expected[area].resources);
      const reads = statements.filter((st) => actionsOf(st).includes('secretsmanager:GetSecretValue'));
      expect(reads, area).toEqual([
        expect.objectContaining({
          Effect: 'Allow',
          Action: 'secretsmanager:GetSecretValue',
          Resource: area === 'admin' ? [secret(), { Ref: adminSecretId() }, { Ref: commerceSecretId() }] : area === 'public' ? [secret(), { Ref: commerceSecretId() }] : secret(),
        }),
      ]);
    }
  });

  it('proves for every role which tables it may touch: the staff table only the admin function (and the move)', () => {
    const touched = new Map<string, Set<string>>();
    for (const policy of idsOf(s.json, 'AWS::IAM::Policy')) {
      for (const statement of resource(policy).Properties.PolicyDocument.Statement as any[]) {
        // ListStreams (the stream event source's, on "*") lists stream names and reads no item.
        if (!actionsOf(statement).some((action) => action.startsWith('dynamodb:') && action !== 'dynamodb:ListStreams')) continue;
        // Every DynamoDB grant names its tables: no wildcard reaches one it does not name.
        for (const target of [statement.Resource].flat()) expect(target, policy).not.toBe('*');
        const tables = [...referencesIn(statement.Resource)].filter((id) => resource(id)?.Type === 'AWS::DynamoDB::Table');
        expect(tables.length, `${policy}: a DynamoDB grant without a table`).toBeGreaterThan(0);
        for (const role of resource(policy).Properties.Roles as any[]) {
          for (const table of tables) touched.set(role.Ref, new Set([...(touched.get(role.Ref) ?? []), table]));
        }
      }
    }
    const moveRole = roleOf(only(idsOf(s.json, 'AWS::Lambda::Function', (p) => String(p.Description).startsWith('Moves Stagedoor staff accounts'))));
    const expected = new Map<string, string[]>([
      [roleOf(functionOf('public')), [tableId()]],
      [roleOf(functionOf('admin')), [tableId(), staffTableId()]],
      [roleOf(functionOf('internal')), [tableId()]],
      [roleOf(functionOf('rtmp-callback')), [tableId()]],
      [roleOf(functionOf('edge-sync')), [tableId()]],
      [roleOf(functionOf('recording-sweep')), [tableId()]],
      [roleOf(functionOf('job-worker')), [tableId()]],
      [roleOf(functionOf('audience-recorder')), [tableId()]],
      [roleOf(functionOf('mailer')), [tableId()]],
      [roleOf(functionOf('checkout-sweep')), [tableId()]],
      [moveRole, [tableId(), staffTableId()]],
    ]);
    expect(new Map([...touched].map(([role, tables]) => [role, [...tables].sort()]))).toEqual(
      new Map([...expected].map(([role, tables]) => [role, [...tables].sort()])),
    );
    // No role is granted anything on the staff table through a resource policy or the ingest task.
    expect(JSON.stringify(resource(only(idsOf(s.json, 'AWS::ECS::TaskDefinition'))).Properties)).not.toContain(staffTableId());
    const staff = { 'Fn::GetAtt': [staffTableId(), 'Arn'] };
    const adminStaff = statementsOf(roleOf(functionOf('admin'))).filter((st) => referencesIn(st.Resource).has(staffTableId()));
    expect(adminStaff).toEqual([expect.objectContaining({ Effect: 'Allow', Action: STAFF_TABLE_ACCESS, Resource: staff })]);
    // The move reads and deletes only the old staff partition of the main table, and only puts into the staff table.
    const moveStatements = statementsOf(moveRole).filter((st) => actionsOf(st).some((a) => a.startsWith('dynamodb:')));
    expect(moveStatements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['dynamodb:Query', 'dynamodb:BatchWriteItem'],
          Resource: { 'Fn::GetAtt': [tableId(), 'Arn'] },
          Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['ACCOUNTS'] } },
        }),
        expect.objectContaining({ Action: 'dynamodb:PutItem', Resource: staff }),
      ]),
    );
  });

  it('lets only the admin function read the admin secret (and the seeding fill it, the staff move seal with its key); nobody else may touch it', () => {
    const adminSecret = adminSecretId();
    const seedRole = roleOf(only(idsOf(s.json, 'AWS::Lambda::Function', (p) => String(p.Description).startsWith('Fills the Stagedoor secrets'))));
    const moveRole = roleOf(only(idsOf(s.json, 'AWS::Lambda::Function', (p) => String(p.Description).startsWith('Moves Stagedoor staff accounts'))));
    const grants = rolesGranted(adminSecret);
    const readers = grants.filter((grant) => grant.actions.includes('secretsmanager:GetSecretValue')).map((grant) => grant.role);
    expect(new Set(readers)).toEqual(new Set([roleOf(functionOf('admin')), seedRole, moveRole]));
    expect(grants.filter((grant) => grant.role === roleOf(functionOf('admin'))).flatMap((grant) => grant.actions)).toEqual(['secretsmanager:GetSecretValue']);
    expect(grants.filter((grant) => grant.role === moveRole).flatMap((grant) => grant.actions)).not.toContain('secretsmanager:PutSecretValue');
    for (const area of ['public', 'internal', 'rtmp-callback', 'edge-sync', 'recording-sweep', 'checkout-sweep'] as const) {
      const statements = statementsOf(roleOf(functionOf(area)));
      expect(statements.filter((st) => referencesIn(st.Resource).has(adminSecret)), area).toEqual([]);
      // Nor through a wildcard.
      for (const statement of statements.filter((st) => actionsOf(st).some((action) => action.startsWith('secretsmanager:')))) {
        expect([statement.Resource].flat(), area).not.toContain('*');
      }
    }
    // The ingest task reads only internalApiKey, from the shared secret.
    expect(JSON.stringify(resource(only(idsOf(s.json, 'AWS::ECS::TaskDefinition'))).Properties)).not.toContain(adminSecret);
    // No resource policy opens it to anyone.
    expect(idsOf(s.json, 'AWS::SecretsManager::ResourcePolicy')).toEqual([]);
  });

  it('lets only the public function, the checkout sweep, the admin function and the job worker read the commerce secret (the order webhook\'s, Stripe\'s key: refunds)', () => {
    const readers = rolesGranted(commerceSecretId()).filter((grant) => grant.actions.includes('secretsmanager:GetSecretValue'));
    expect(new Set(readers.map((grant) => grant.role))).toEqual(new Set([roleOf(functionOf('public')), roleOf(functionOf('checkout-sweep')), roleOf(functionOf('admin')), roleOf(functionOf('job-worker'))]));
    expect(new Set(rolesGranted(commerceSecretId()).flatMap((grant) => grant.actions))).toEqual(new Set(['secretsmanager:GetSecretValue']));
  });

  it('lets the mailer read orders and events, write an order\'s email state, and send as the stack parameter\'s sender only', () => {
    const statements = statementsOf(roleOf(functionOf('mailer')));
    expect(statements).toContainEqual({ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], Resource: table() });
    const send = statements.filter((st) => actionsOf(st).some((action) => action.startsWith('ses:')));
    expect(send).toHaveLength(1);
    expect(send[0].Action).toBe('ses:SendEmail');
    expect(send[0].Condition).toEqual({ StringEquals: { 'ses:FromAddress': { Ref: 'TicketEmailSender' } } });
    expect(JSON.stringify(send[0].Resource)).toContain(':identity/');
    for (const target of [send[0].Resource].flat()) expect(target).not.toBe('*');
    // No other function may send email.
    for (const area of RUNTIMES.filter((runtime) => runtime !== 'mailer')) {
      expect(statementsOf(roleOf(functionOf(area))).filter((st) => actionsOf(st).some((action) => action.startsWith('ses:'))), area).toEqual([]);
    }
    expect(s.json.Parameters?.TicketEmailSender).toMatchObject({ Type: 'String', Default: '' });
  });

  it('never grants a wildcard action or a write to the secret to a runtime function', () => {
    for (const area of RUNTIMES) {
      for (const statement of statementsOf(roleOf(functionOf(area)))) {
        for (const action of actionsOf(statement)) {
          expect(action, area).not.toMatch(/\*$/);
          expect(action, area).not.toMatch(/^secretsmanager:(Put|Update|Create|Delete)/);
        }
      }
    }
  });

  it('lets only the admin function invalidate, and only this distribution', () => {
    const invalidators = RUNTIMES.filter((area) =>
      statementsOf(roleOf(functionOf(area))).some((st) => actionsOf(st).includes('cloudfront:CreateInvalidation')),
    );
    expect(invalidators).toEqual(['admin']);
    const statement = statementsOf(roleOf(functionOf('admin'))).find((st) => actionsOf(st).includes('cloudfront:CreateInvalidation'));
    expect(statement.Resource).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: distributionId() }]],
    });
  });

  it('lets edge-sync read the stream, the feed index and the events listing (country rules), and write only its KeyValueStore', () => {
    const statements = statementsOf(roleOf(functionOf('edge-sync')));
    const kvs = { 'Fn::GetAtt': [only(idsOf(s.json, 'AWS::CloudFront::KeyValueStore')), 'Arn'] };
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:ListKeys', 'cloudfront-keyvaluestore:UpdateKeys'],
        Resource: kvs,
      }),
    );
    expect(statements).toContainEqual(expect.objectContaining({ Action: 'dynamodb:Query', Resource: [index('accessFeed'), index('byEvent')] }));
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator']),
        Resource: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      }),
    );
    const writes = statements.filter((st) => actionsOf(st).some((a) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(a)));
    expect(writes).toEqual([]);
  });

  it('gives the admin function alone reads of the media bucket (the watermark trace: recording indexes, segments), and the export files (to begin them and sign their links)', () => {
    const media = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('streams/')));
    const objects = (prefix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [media, 'Arn'] }, `/${prefix}`]] });
    const traceReads = [
      { Effect: 'Allow', Action: 's3:GetObject', Resource: [objects('recordings/*'), objects('streams/*.ts')] },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [media, 'Arn'] }, Condition: { StringLike: { 's3:prefix': ['recordings/*'] } } },
    ];
    for (const area of AREAS) {
      const statements = statementsOf(roleOf(functionOf(area)));
      expect(statements.filter((st) => actionsOf(st).some((action) => action.startsWith('s3:'))), area).toEqual(area === 'admin' ? [...traceReads, exportFileStatement()] : []);
      expect(statements.filter((st) => referencesIn(st.Resource).has(media)), area).toEqual(area === 'admin' ? traceReads : []);
    }
    const exportUsers = RUNTIMES.filter((runtime) => statementsOf(roleOf(functionOf(runtime))).some((st) => referencesIn(st.Resource).has(exportsBucketId())));
    expect(exportUsers).toEqual(['admin', 'job-worker']);
  });

  it('lets the recording sweep find leases in the events listing, end one, read recording indexes and write playlists: nothing else', () => {
    const media = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('streams/')));
    const objects = (prefix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [media, 'Arn'] }, `/${prefix}`]] });
    expect(statementsOf(roleOf(functionOf('recording-sweep')))).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:Query', Resource: index('byEvent') },
      { Effect: 'Allow', Action: 'dynamodb:UpdateItem', Resource: table() },
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects('recordings/*') },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [media, 'Arn'] }, Condition: { StringLike: { 's3:prefix': ['recordings/*'] } } },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects('streams/*.m3u8') },
    ]);
  });

  it('limits the ingest task role to writing under streams/ and keeping the recording index under recordings/', () => {
    const taskDefinition = only(idsOf(s.json, 'AWS::ECS::TaskDefinition'));
    const taskRole = resource(taskDefinition).Properties.TaskRoleArn['Fn::GetAtt'][0];
    const media = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('streams/')));
    expect(statementsOf(taskRole)).toEqual([
      { Effect: 'Allow', Action: 's3:PutObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [media, 'Arn'] }, '/streams/*']] } },
      { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject'], Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [media, 'Arn'] }, '/recordings/*']] } },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: { 'Fn::GetAtt': [media, 'Arn'] },
        Condition: { StringLike: { 's3:prefix': ['recordings/*'] } },
      },
    ]);
  });
});

describe('api gateway', () => {
  it('has a route for every entry of route-table.ts, integrated with its area function, and no other', () => {
    const routes = idsOf(s.json, 'AWS::ApiGatewayV2::Route').map((id) => resource(id).Properties);
    expect(routes.map((route) => route.RouteKey).sort()).toEqual(routeTable.map(routeKey).sort());
    for (const spec of routeTable) {
      const route = routes.find((r) => r.RouteKey === routeKey(spec))!;
      const integrationId = route.Target['Fn::Join'][1][1].Ref as string;
      const integration = resource(integrationId).Properties;
      expect(integration, routeKey(spec)).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [functionOf(spec.area), 'Arn'] },
      });
    }
    // One integration per area, shared by its routes.
    expect(idsOf(s.json, 'AWS::ApiGatewayV2::Integration')).toHaveLength(AREAS.length);
  });

  it('deploys the $default stage with access logs, a default throttle above 1M viewers\' heartbeats, and route throttles on validate, both sign-in steps and code generation', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: 50_000, ThrottlingBurstLimit: 50_000 },
      RouteSettings: {
        'POST /api/tokens/validate': { ThrottlingRateLimit: 5000, ThrottlingBurstLimit: 5000 },
        'POST /api/admin/login': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
        'POST /api/admin/login/second-factor': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
        'POST /api/admin/events/{id}/tokens': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
      },
    });
    const stage = resource(only(idsOf(s.json, 'AWS::ApiGatewayV2::Stage')));
    const stageProps = stage.Properties;
    // No route setting may hold the playback routes below 1M viewers' heartbeats (33,334/s).
    expect(stageProps.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThanOrEqual(33_334);
    for (const key of Object.keys(stageProps.RouteSettings)) expect(key).toMatch(/validate|login|\/tokens$/);
    // Route settings name existing routes: the stage waits for them.
    const routeIds = idsOf(s.json, 'AWS::ApiGatewayV2::Route', (p) => p.RouteKey in stageProps.RouteSettings);
    expect(routeIds).toHaveLength(Object.keys(stageProps.RouteSettings).length);
    for (const id of routeIds) expect(stage.DependsOn).toContain(id);
  });

  it('reserves no Lambda concurrency unless asked to (new accounts could not deploy it)', () => {
    for (const area of AREAS) expect(resource(functionOf(area)).Properties.ReservedConcurrentExecutions, area).toBeUndefined();
  });
});

describe('delivery', () => {
  it('runs edge/validate-request.js unchanged as a cloudfront-js-2.0 function with the KeyValueStore', () => {
    const code = readFileSync(MEDIA_GUARD_FILE, 'utf8');
    s.template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: code,
      FunctionConfig: {
        Runtime: 'cloudfront-js-2.0',
        KeyValueStoreAssociations: [{ KeyValueStoreARN: { 'Fn::GetAtt': [only(idsOf(s.json, 'AWS::CloudFront::KeyValueStore')), 'Arn'] } }],
      },
      AutoPublish: true,
    });
  });

  it('keeps both CloudFront Function files under the 10 KB limit (CDK does not check it)', () => {
    for (const file of [MEDIA_GUARD_FILE, DIRECTORY_INDEX_FILE]) {
      expect(Buffer.byteLength(readFileSync(file)), file).toBeLessThan(10 * 1024);
    }
  });

  it('guards /streams/* with the function and caches on the path alone', () => {
    const media = behavior('/streams/*');
    const guard = only(idsOf(s.json, 'AWS::CloudFront::Function', (p) => p.FunctionCode === readFileSync(MEDIA_GUARD_FILE, 'utf8')));
    expect(media).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
      FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [guard, 'FunctionARN'] } }],
    });
    const cachePolicy = resource(media.CachePolicyId.Ref).Properties.CachePolicyConfig;
    expect(cachePolicy.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
      QueryStringsConfig: { QueryStringBehavior: 'none' },
      HeadersConfig: { HeaderBehavior: 'none' },
      CookiesConfig: { CookieBehavior: 'none' },
    });
    // The function sees the viewer's country only because a policy names the header; not the cache key, so countries share copies.
    const mediaForwarded = resource(media.OriginRequestPolicyId.Ref).Properties.OriginRequestPolicyConfig;
    expect(mediaForwarded).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['CloudFront-Viewer-Country'] },
      CookiesConfig: { CookieBehavior: 'none' },
      QueryStringsConfig: { QueryStringBehavior: 'none' },
    });
    const mediaBucket = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('streams/')));
    const origin = originOf(media.TargetOriginId);
    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [mediaBucket, 'RegionalDomainName'] });
    expect(origin.OriginAccessControlId).toBeDefined();
  });

  it('sends /api/* uncached to API Gateway with the origin secret and the viewer address', () => {
    const api = behavior('/api/*');
    expect(api).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
    });
    // Not cached; Authorization (bearer JWT), cookies (admin session) and query keyed, which is how they reach the origin.
    const cache = resource(api.CachePolicyId.Ref).Properties.CachePolicyConfig;
    // Cached only where the response allows it (the event status's s-maxage), never longer than that.
    expect(API_MAX_SHARED_CACHE_SECONDS).toBe(STATUS_SHARED_CACHE_SECONDS);
    expect(cache).toMatchObject({ MinTTL: 0, DefaultTTL: 0, MaxTTL: STATUS_SHARED_CACHE_SECONDS });
    expect(cache.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Authorization'] },
      CookiesConfig: { CookieBehavior: 'all' },
      QueryStringsConfig: { QueryStringBehavior: 'all' },
    });
    // The viewer's address for the rate limits; never Host (API Gateway rejects a foreign Host).
    const forwarded = resource(api.OriginRequestPolicyId.Ref).Properties.OriginRequestPolicyConfig.HeadersConfig;
    expect(forwarded.HeaderBehavior).toBe('whitelist');
    expect(forwarded.Headers).toEqual(expect.arrayContaining(['CloudFront-Viewer-Address', 'CloudFront-Viewer-Country', 'Content-Type', 'X-Internal-Api-Key']));
    // CloudFront takes at most ten headers in one origin request policy.
    expect(forwarded.Headers.length).toBeLessThanOrEqual(10);
    expect(forwarded.Headers.map((h: string) => h.toLowerCase())).not.toContain('host');
    const origin = originOf(api.TargetOriginId);
    const httpApi = only(idsOf(s.json, 'AWS::ApiGatewayV2::Api'));
    expect(origin.DomainName).toEqual({ 'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [httpApi, 'ApiEndpoint'] }] }] });
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    // A deploy-time dynamic reference: the value is in neither the template nor cdk.out.
    expect(origin.OriginCustomHeaders).toEqual([
      {
        HeaderName: 'X-Origin-Verify',
        HeaderValue: {
          'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: sharedSecretId() }, ':SecretString:originVerifySecret::}}']],
        },
      },
    ]);
  });

  it('serves the pages from the web bucket by default, HTTPS only, with folder indexes', () => {
    const config = distributionConfig();
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    const web = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.Tags ?? []).includes('auto-delete-objects')));
    expect(originOf(config.DefaultCacheBehavior.TargetOriginId).DomainName).toEqual({ 'Fn::GetAtt': [web, 'RegionalDomainName'] });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    for (const b of [config.DefaultCacheBehavior, ...config.CacheBehaviors]) expect(b.ViewerProtocolPolicy).not.toBe('allow-all');
    expect(config.Logging).toBeDefined();
  });

  it('sends the pages and the API with the security headers of web/security-headers.ts, HSTS included', () => {
    const headersOf = (b: any) => resource(b.ResponseHeadersPolicyId.Ref).Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const common = {
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: HSTS_MAX_AGE_SECONDS, IncludeSubdomains: true, Override: true },
    };
    expect(headersOf(distributionConfig().DefaultCacheBehavior)).toEqual({
      ...common,
      ContentSecurityPolicy: { ContentSecurityPolicy: pageContentSecurityPolicy(), Override: true },
    });
    expect(headersOf(behavior('/api/*'))).toEqual({ ...common, ContentSecurityPolicy: { ContentSecurityPolicy: API_CONTENT_SECURITY_POLICY, Override: true } });
    expect(pageContentSecurityPolicy()).toContain("frame-ancestors 'none'");
    // CloudFront refuses a policy longer than 1,783 characters.
    expect(pageContentSecurityPolicy().length).toBeLessThan(1783);
  });

  it('lets only this distribution read the buckets (OAC), with ListBucket on media for honest 404s', () => {
    const distributionArn = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: distributionId() }]],
    };
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: ['s3:GetObject', 's3:ListBucket'],
            Condition: { StringEquals: { 'AWS:SourceArn': distributionArn } },
          }),
        ]),
      },
    });
  });

  it('deploys the built pages: assets cached for good, pages revalidated', () => {
    const deployments = idsOf(s.json, 'Custom::CDKBucketDeployment').map((id) => resource(id).Properties);
    expect(deployments).toHaveLength(2);
    expect(deployments.map((d) => d.SystemMetadata?.['cache-control']).sort()).toEqual(['no-cache', 'public, max-age=31536000, immutable']);
  });
});

describe('edge-sync', () => {
  it('reads the table stream (codes and events only) and runs a reconciliation every 5 minutes', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      FunctionName: { Ref: functionOf('edge-sync') },
      StartingPosition: 'LATEST',
      BisectBatchOnFunctionError: true,
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ dynamodb: { Keys: { pk: { S: [{ prefix: 'CODE#' }, { prefix: 'EVENT#' }] } } } }) }] },
    });
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionOf('edge-sync'), 'Arn'] } })],
    });
  });

  it('fills the KeyValueStore once on the first deploy, after the secret is seeded', () => {
    const [initial] = idsOf(s.json, 'Custom::AWS');
    expect(initial).toBeDefined();
    const create = JSON.stringify(resource(initial!).Properties.Create);
    expect(create).toContain('\\"action\\":\\"invoke\\"');
    expect(create).toContain('\\"InvocationType\\":\\"Event\\"');
    expect(create).toContain(functionOf('edge-sync'));
    const seed = seedId('fill');
    expect([resource(initial!).DependsOn].flat()).toContain(seed);
  });
});

describe('mailer', () => {
  it('reads the table stream (orders that owe an email only), bisects failing batches, and records those it gives up on in a queue', () => {
    const queue = only(idsOf(s.json, 'AWS::SQS::Queue').filter((id) => id.startsWith('Mailer')));
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      FunctionName: { Ref: functionOf('mailer') },
      StartingPosition: 'LATEST',
      BatchSize: 10,
      MaximumRetryAttempts: 3,
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ dynamodb: { Keys: { pk: { S: [{ prefix: 'ORDER#' }] } }, NewImage: { emailStatus: { S: ['pending'] } } } }) }] },
    });
  });
});

describe('audience recorder', () => {
  it('reads the table stream (codes and events) in batches of up to a thousand and writes only audience items: no query, no delete', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      FunctionName: { Ref: functionOf('audience-recorder') },
      StartingPosition: 'LATEST',
      BatchSize: 1000,
      MaximumBatchingWindowInSeconds: 5,
      BisectBatchOnFunctionError: true,
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ dynamodb: { Keys: { pk: { S: [{ prefix: 'CODE#' }, { prefix: 'EVENT#' }] } } } }) }] },
    });
    const statements = statementsOf(roleOf(functionOf('audience-recorder')));
    expect(statements).toContainEqual({ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], Resource: { 'Fn::GetAtt': [tableId(), 'Arn'] } });
    const tableActions = statements.filter((st) => referencesIn(st.Resource).has(tableId())).flatMap(actionsOf);
    expect(tableActions.filter((action) => /Query|Delete|BatchWrite|Scan/.test(action))).toEqual([]);
  });
});

describe('recording sweep', () => {
  it('runs every minute, each run done before the next', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionOf('recording-sweep'), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    expect(resource(functionOf('recording-sweep')).Properties.Timeout).toBeLessThan(60);
  });
});

describe('checkout sweep', () => {
  it('runs as its own function every 5 minutes, on the plain scheduled event, with no retry of a failed delivery', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionOf('checkout-sweep'), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    const targets = idsOf(s.json, 'AWS::Events::Rule').flatMap((id) => resource(id).Properties.Targets ?? []);
    expect(targets.filter((target: any) => target.Arn?.['Fn::GetAtt']?.[0] === functionOf('public'))).toEqual([]);
    expect(targets.every((target: any) => target.Input === undefined)).toBe(true);
  });

  it("reads the shared and commerce secrets and writes only the public area's items", () => {
    const env = resource(functionOf('checkout-sweep')).Properties.Environment.Variables;
    expect(env).toMatchObject({ TABLE_NAME: { Ref: tableId() }, SECRETS_ARN: { Ref: sharedSecretId() }, COMMERCE_SECRETS_ARN: { Ref: commerceSecretId() } });
    const statements = statementsOf(roleOf(functionOf('checkout-sweep')));
    const allowed = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'secretsmanager:GetSecretValue'];
    expect(statements.flatMap(actionsOf).filter((action: string) => !allowed.includes(action) && !action.startsWith('logs:') && !action.startsWith('xray:'))).toEqual([]);
    const puts = statements.find((statement) => actionsOf(statement).includes('dynamodb:PutItem'));
    expect(puts.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*', 'CHECKOUT#*', 'CODE#*', 'ORDER#*', 'PAYMENT#*'] } });
    // The orders whose sales step's writer died are listed in the accessFeed index (dynamo-order-store.ts).
    const queries = statements.find((statement) => actionsOf(statement).includes('dynamodb:Query'));
    expect(JSON.stringify(queries.Resource)).toContain('/index/accessFeed');
  });
});

describe('ingest', () => {
  it('listens on TCP 1935 on an internet-facing NLB and drains streams for 15 minutes', () => {
    s.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Type: 'network', Scheme: 'internet-facing' });
    s.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 1935, Protocol: 'TCP' });
    // RTMP and SRT.
    s.template.resourceCountIs('AWS::ElasticLoadBalancingV2::Listener', 2);
    s.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 1935,
      Protocol: 'TCP',
      TargetType: 'ip',
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '900' }]),
    });
  });

  it('listens for SRT on UDP 9000 to the tasks\' SRT port, health-checked over TCP on the RTMP port', () => {
    s.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 9000, Protocol: 'UDP' });
    s.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 9000,
      Protocol: 'UDP',
      TargetType: 'ip',
      HealthCheckProtocol: 'TCP',
      HealthCheckPort: '1935',
    });
    const groups = idsOf(s.json, 'AWS::EC2::SecurityGroup');
    const balancer = only(groups.filter((id) => resource(id).Properties.GroupDescription === 'RTMP ingest load balancer'));
    expect(resource(balancer).Properties.SecurityGroupIngress).toContainEqual(expect.objectContaining({ IpProtocol: 'udp', FromPort: 9000, ToPort: 9000, CidrIp: '0.0.0.0/0' }));
    s.template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      FromPort: 9000,
      ToPort: 9000,
      IpProtocol: 'udp',
      SourceSecurityGroupId: { 'Fn::GetAtt': [balancer, 'GroupId'] },
    });
    s.template.hasResourceProperties('AWS::ECS::Service', {
      LoadBalancers: Match.arrayWith([Match.objectLike({ ContainerName: 'ingest', ContainerPort: 9000 })]),
    });
  });

  it('admits RTMP to the tasks only from the load balancer', () => {
    const groups = idsOf(s.json, 'AWS::EC2::SecurityGroup');
    const balancer = only(groups.filter((id) => resource(id).Properties.GroupDescription === 'RTMP ingest load balancer'));
    s.template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      FromPort: 1935,
      ToPort: 1935,
      IpProtocol: 'tcp',
      SourceSecurityGroupId: { 'Fn::GetAtt': [balancer, 'GroupId'] },
    });
    const task = only(groups.filter((id) => resource(id).Properties.GroupDescription === 'RTMP ingest tasks'));
    expect(resource(task).Properties.SecurityGroupIngress ?? []).toEqual([]);
  });

  it('runs the container in callback mode against the API with the key from Secrets Manager', () => {
    const httpApi = only(idsOf(s.json, 'AWS::ApiGatewayV2::Api'));
    const apiUrl = ['https://', { Ref: httpApi }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }];
    const media = only(idsOf(s.json, 'AWS::S3::Bucket', (p) => JSON.stringify(p.LifecycleConfiguration ?? {}).includes('streams/')));
    s.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      ContainerDefinitions: [
        Match.objectLike({
          PortMappings: [
            { ContainerPort: 1935, Protocol: 'tcp' },
            { ContainerPort: 9000, Protocol: 'udp' },
          ],
          Environment: Match.arrayWith([
            { Name: 'INGEST_LISTEN', Value: ':1935' },
            { Name: 'INGEST_SRT_LISTEN', Value: ':9000' },
            { Name: 'INGEST_AUTH_MODE', Value: 'callback' },
            { Name: 'INGEST_AUTH_CALLBACK', Value: { 'Fn::Join': ['', [...apiUrl, '/api/internal/rtmp-auth']] } },
            { Name: 'INGEST_AUTH_RECHECK_INTERVAL', Value: '30s' },
            { Name: 'INGEST_ALLOW_PLAY', Value: 'false' },
            { Name: 'INGEST_API_URL', Value: { 'Fn::Join': ['', [...apiUrl, '/']] } },
            { Name: 'MEDIA_BUCKET', Value: { Ref: media } },
          ]),
          Secrets: [
            {
              Name: 'INTERNAL_API_KEY',
              ValueFrom: { 'Fn::Join': ['', [{ Ref: sharedSecretId() }, ':internalApiKey::']] },
            },
          ],
          HealthCheck: Match.objectLike({ Command: ['CMD', 'node', '/app/healthcheck.cjs'] }),
          StopTimeout: 60,
        }),
      ],
    });
    // Sized for re-encoding publishers at OBS's defaults (docs/deploy.md, "Sizing the ingest").
    s.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Cpu: '2048',
      Memory: '4096',
      ContainerDefinitions: [Match.objectLike({ Environment: Match.arrayWith([{ Name: 'INGEST_HLS_SEGMENT', Value: '1s' }, { Name: 'INGEST_HLS_REENCODE', Value: 'auto' }]) })],
    });
    const environment: { Name: string }[] = s.json.Resources[only(idsOf(s.json, 'AWS::ECS::TaskDefinition'))]!.Properties.ContainerDefinitions[0].Environment;
    expect(environment.map((e) => e.Name)).not.toContain('INTERNAL_API_KEY');
  });

  it('scales the Fargate service on CPU', () => {
    s.template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      DesiredCount: 1,
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'ENABLED' }) },
      DeploymentConfiguration: Match.objectLike({ DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
    });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 3 });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' },
        TargetValue: 60,
      }),
    });
  });

  it('starts the service only after the secret has been seeded', () => {
    const service = only(idsOf(s.json, 'AWS::ECS::Service'));
    const seed = seedId('fill');
    expect([resource(service).DependsOn].flat()).toContain(seed);
    expect([resource(distributionId()).DependsOn].flat()).toContain(seed);
  });
});

describe('the template as a whole', () => {
  it('has no dependency cycle (CloudFormation would refuse it at deploy time)', () => {
    const edges = new Map<string, Set<string>>();
    for (const [id, res] of Object.entries(s.json.Resources)) {
      const refs = referencesIn(res.Properties);
      for (const dep of [res.DependsOn ?? []].flat()) refs.add(dep);
      edges.set(id, new Set([...refs].filter((ref) => ref in s.json.Resources)));
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const cycle: string[] = [];
    const visit = (id: string, path: string[]): boolean => {
      if (state.get(id) === 'done') return false;
      if (state.get(id) === 'visiting') {
        cycle.push(...path.slice(path.indexOf(id)), id);
        return true;
      }
      state.set(id, 'visiting');
      for (const next of edges.get(id)!) if (visit(next, [...path, id])) return true;
      state.set(id, 'done');
      return false;
    };
    for (const id of edges.keys()) if (visit(id, [])) break;
    expect(cycle).toEqual([]);
  });

  it('outputs the viewer, admin, API and RTMP endpoints and the secret ARNs', () => {
    expect(s.json.Outputs!.AdminSecretArn.Value).toEqual({ Ref: adminSecretId() });
    for (const name of ['ViewerUrl', 'AdminUrl', 'ApiUrl', 'ApiGatewayUrl', 'RtmpEndpoint', 'SecretsArn', 'AdminSecretArn', 'DistributionId', 'EdgeSyncFunctionName', 'ApiFunctionNames']) {
      s.template.hasOutput(name, {});
    }
  });

  it('passes cdk-nag AwsSolutions with no unsuppressed error or warning', () => {
    const findings = (list: SynthesisMessage[]) => list.map((f) => `${f.id}: ${String(f.entry.data).split(':')[0]}`);
    expect(findings(s.annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')))).toEqual([]);
    expect(findings(s.annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')))).toEqual([]);
  });

  it('gives every cdk-nag suppression a written reason', () => {
    const suppressions = Object.values(s.json.Resources).flatMap((res: any) => res.Metadata?.cdk_nag?.rules_to_suppress ?? []);
    expect(suppressions.length).toBeGreaterThan(0);
    for (const suppression of suppressions) expect(suppression.reason.length, suppression.id).toBeGreaterThanOrEqual(40);
  });
});

describe('alarms and the dashboard', () => {
  const topicId = () => only(idsOf(s.json, 'AWS::SNS::Topic'));
  const alarms = () => idsOf(s.json, 'AWS::CloudWatch::Alarm');
  const alarmNamed = (name: string) => only(alarms().filter((id) => id.includes(name)));
  /** The metrics an alarm reads: its own, or those of its math expression. */
  const metricsOfAlarm = (id: string): { Namespace: string; MetricName: string; Dimensions?: { Name: string }[] }[] => {
    const p = resource(id).Properties;
    return p.MetricName ? [p] : p.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
  };

  it('sends every alarm of the stack, and its return to OK, to the one alarm topic', () => {
    expect(alarms().length).toBeGreaterThan(RUNTIMES.length * 2);
    for (const id of alarms()) {
      expect(resource(id).Properties.AlarmActions, id).toEqual([{ Ref: topicId() }]);
      expect(resource(id).Properties.OKActions, id).toEqual([{ Ref: topicId() }]);
    }
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', Match.objectLike({ Topics: [{ Ref: topicId() }] }));
  });

  it('mails the alarms to the address of the stack parameter AlarmEmail, when one is given', () => {
    expect(s.json.Parameters?.AlarmEmail).toMatchObject({ Type: 'String', Default: '' });
    const subscription = resource(only(idsOf(s.json, 'AWS::SNS::Subscription')));
    expect(subscription.Properties).toEqual({ TopicArn: { Ref: topicId() }, Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' } });
    expect(subscription.Condition).toBeDefined();
    expect(s.json.Outputs?.AlarmTopicArn?.Value).toEqual({ Ref: topicId() });
  });

  it('alarms on the ingest down during a scheduled show, stream lag, table throttles, and 5xx at the API and at CloudFront', () => {
    const names = (id: string) => metricsOfAlarm(id).map((m) => `${m.Namespace} ${m.MetricName}`).sort();
    expect(names(alarmNamed('IngestDownDuringShow'))).toEqual(['AWS/NetworkELB HealthyHostCount', 'Stagedoor ScheduledShows']);
    expect(resource(alarmNamed('IngestDownDuringShow')).Properties.TreatMissingData).toBe('breaching');
    // A backup encoder on air: any switch to it in a minute.
    expect(names(alarmNamed('BackupEncoderOnAir'))).toEqual(['Stagedoor/Ingest BackupOnAir']);
    expect(resource(alarmNamed('BackupEncoderOnAir')).Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
    const lag = resource(alarmNamed('EdgeSyncLag')).Properties;
    expect(lag).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'IteratorAge', Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionOf('edge-sync') } }] });
    expect(resource(alarmNamed('AudienceLag')).Properties.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: functionOf('audience-recorder') } }]);
    expect(new Set(names(alarmNamed('TableThrottles')))).toEqual(new Set(['AWS/DynamoDB ThrottledRequests']));
    expect(names(alarmNamed('Api5xx'))).toEqual(['AWS/ApiGateway 5xx', 'AWS/ApiGateway Count']);
    const cloudFront = resource(alarmNamed('CloudFront5xx'));
    expect(cloudFront.Properties).toMatchObject({ Namespace: 'AWS/CloudFront', MetricName: '5xxErrorRate', Dimensions: expect.arrayContaining([{ Name: 'Region', Value: 'Global' }]) });
    // CloudFront's metrics exist in us-east-1 only, and an alarm reads its own region's.
    expect((s.json as any).Conditions[cloudFront.Condition!]).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] });
  });

  it("charts only metrics that exist: AWS's own, and the ones the functions and the ingest emit", async () => {
    const dashboard = resource(only(idsOf(s.json, 'AWS::CloudWatch::Dashboard'))).Properties.DashboardBody;
    // The body is a JSON text with references spliced in: any placeholder keeps it JSON.
    const text = dashboard['Fn::Join'][1].map((part: unknown) => (typeof part === 'string' ? part : 'ref')).join('');
    const charted = new Set<string>();
    for (const widget of JSON.parse(text).widgets) {
      for (const metric of widget.properties.metrics ?? []) {
        const [namespace, name] = metric as string[];
        if (typeof namespace === 'string') charted.add(`${namespace} ${name}`);
      }
    }
    for (const id of alarms()) for (const m of metricsOfAlarm(id)) charted.add(`${m.Namespace} ${m.MetricName}`);
    const emitted = await emittedMetrics();
    const unknown = [...charted].filter((metric) => !(AWS_METRICS.has(metric) || emitted.has(metric)));
    expect(unknown).toEqual([]);
    // Every metric of our own the code emits is on the dashboard.
    expect([...emitted].filter((metric) => !charted.has(metric))).toEqual([]);
    for (const group of AREAS) expect(text).toContain(`"label":"API ${group}"`);
  });
});

/** Metrics AWS publishes, by namespace and name, that the stack charts or alarms on. */
const AWS_METRICS = new Set(
  Object.entries({
    'AWS/Lambda': ['Invocations', 'Errors', 'Throttles', 'Duration', 'ConcurrentExecutions', 'IteratorAge'],
    'AWS/ApiGateway': ['Count', '4xx', '5xx', 'Latency'],
    'AWS/DynamoDB': ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ReadThrottleEvents', 'WriteThrottleEvents', 'ThrottledRequests'],
    'AWS/CloudFront': ['Requests', 'BytesDownloaded', '4xxErrorRate', '5xxErrorRate'],
    'AWS/NetworkELB': ['HealthyHostCount'],
    'AWS/SQS': ['ApproximateNumberOfMessagesVisible'],
  }).flatMap(([namespace, names]) => names.map((name) => `${namespace} ${name}`)),
);

/** What the code itself emits, read from the EMF it writes: the ingest's minute line, the functions' metrics. */
async function emittedMetrics(): Promise<Set<string>> {
  const { startIngestMetrics } = await import('../../ingest-container/src/metrics');
  const { reportScheduledShows } = await import('../../functions/adapters/telemetry');
  const { reportCounterWriteFailed } = await import('../../functions/adapters/dynamo-counter-store');
  const lines: Record<string, any>[] = [];
  const capture = (_msg: string, fields?: Record<string, unknown>) => void lines.push(fields ?? {});
  startIngestMetrics({ log: { debug: capture, info: capture, warn: capture, error: capture }, publishers: () => 1, intervalMs: 3_600_000 }).stop();
  const printed: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    reportScheduledShows(1);
    reportCounterWriteFailed({ counter: 'presence', eventId: 'e1', delta: 1, error: new Error('throttled') });
  } finally {
    process.stdout.write = write;
  }
  for (const line of printed.join('').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  return new Set(
    lines.flatMap((line) => (line._aws?.CloudWatchMetrics ?? []).flatMap((set: any) => set.Metrics.map((m: { Name: string }) => `${set.Namespace} ${m.Name}`))),
  );
}

describe('optional WAF rule', () => {
  it('is a stack parameter, off by default, counting validations and each sign-in step per address', () => {
    expect(s.json.Parameters?.WafValidateRequestsPer5Min).toMatchObject({ Type: 'Number', Default: 0, MinValue: 0 });
    const aclId = only(idsOf(s.json, 'AWS::WAFv2::WebACL'));
    const acl = resource(aclId);
    expect(acl.Condition).toBeDefined();
    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    const [validate, signIn] = acl.Properties.Rules;
    for (const rule of [validate, signIn]) expect(rule.Action).toEqual({ Block: {} });
    expect(validate.Statement.RateBasedStatement).toMatchObject({ Limit: { Ref: 'WafValidateRequestsPer5Min' }, AggregateKeyType: 'IP' });
    expect(validate.Statement.RateBasedStatement.ScopeDownStatement.ByteMatchStatement.SearchString).toBe('/api/tokens/validate');
    expect(signIn.Statement.RateBasedStatement).toMatchObject({ Limit: WAF_SIGN_IN_REQUESTS_PER_5_MIN, AggregateKeyType: 'IP' });
    const paths = signIn.Statement.RateBasedStatement.ScopeDownStatement.OrStatement.Statements.map((st: any) => st.ByteMatchStatement.SearchString);
    expect(paths).toEqual(['/api/admin/login', '/api/admin/login/second-factor']);
    expect(distributionConfig().WebACLId).toEqual({ 'Fn::If': [acl.Condition, { 'Fn::GetAtt': [aclId, 'Arn'] }, { Ref: 'AWS::NoValue' }] });
  });
});

describe('background jobs', () => {
  const worker = () => functionOf('job-worker');
  // The mailer has a queue of its own (its failure destination).
  const queues = () => idsOf(s.json, 'AWS::SQS::Queue').filter((id) => id.startsWith('Jobs'));
  const jobsQueue = () => only(queues().filter((id) => resource(id).Properties.RedrivePolicy));
  const deadLetterQueue = () => only(queues().filter((id) => !resource(id).Properties.RedrivePolicy));
  const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

  it('queues job steps with a dead-letter queue after the tries plus the give-up, both encrypted and TLS-only', () => {
    expect(queues()).toHaveLength(2);
    expect(resource(jobsQueue()).Properties).toMatchObject({
      VisibilityTimeout: JOB_WORKER.visibilityTimeoutSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: arnOf(deadLetterQueue()), maxReceiveCount: JOB_MAX_RECEIVES },
    });
    expect(JOB_MAX_RECEIVES).toBe(JOB_WORKER.tries + 1);
    // AWS's advice for SQS event sources: at least 6 × the function's timeout.
    expect(JOB_WORKER.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * JOB_WORKER.timeoutSeconds);
    expect(resource(deadLetterQueue()).Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    for (const queue of queues()) {
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queue }],
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      });
    }
  });

  it('runs the worker on the queue: one step per invocation, partial batch responses, at most the concurrency the load limits allow', () => {
    expect(resource(worker()).Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: JOB_WORKER.timeoutSeconds,
      Environment: {
        Variables: { TABLE_NAME: { Ref: tableId() }, JOBS_QUEUE_URL: { Ref: jobsQueue() }, EXPORT_BUCKET: { Ref: exportsBucketId() }, COMMERCE_SECRETS_ARN: { Ref: commerceSecretId() } },
      },
    });
    // It holds no secret; it reads the commerce secret's Stripe key (a cancelled show's refunds).
    expect(Object.keys(resource(worker()).Properties.Environment.Variables).sort()).toEqual(['COMMERCE_SECRETS_ARN', 'EXPORT_BUCKET', 'JOBS_QUEUE_URL', 'LOG_LEVEL', 'POWERTOOLS_SERVICE_NAME', 'TABLE_NAME']);
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker() },
      EventSourceArn: arnOf(jobsQueue()),
      BatchSize: JOB_WORKER.batchSize,
      ScalingConfig: { MaximumConcurrency: JOB_WORKER.maxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    for (const metric of ['Errors', 'Throttles']) {
      s.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: metric, Dimensions: [{ Name: 'FunctionName', Value: { Ref: worker() } }] });
    }
  });

  it('alarms as soon as a step lands in the dead-letter queue', () => {
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterQueue(), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('grants the worker only its table actions, its queue and the export files, and only the admin function may start jobs', () => {
    const table = { 'Fn::GetAtt': [tableId(), 'Arn'] };
    const statements = statementsOf(roleOf(worker()));
    expect(statements.filter((st) => actionsOf(st).some((a) => a.startsWith('dynamodb:')))).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'],
        Resource: [table, ...['codesByEvent', 'byLabel', 'byTokenId', 'byEvent'].map((index) => ({ 'Fn::Join': ['', [table, `/index/${index}`]] }))],
      },
    ]);
    const sqsStatements = statements.filter((st) => actionsOf(st).some((a) => a.startsWith('sqs:')));
    for (const statement of sqsStatements) expect(statement.Resource).toEqual(arnOf(jobsQueue()));
    expect(sqsStatements.flatMap(actionsOf).sort()).toEqual(
      ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:SendMessage'].sort(),
    );
    expect(statements.filter((st) => actionsOf(st).some((a) => /^cloudfront:/.test(a)))).toEqual([]);
    expect(statements.filter((st) => actionsOf(st).some((a) => /^secretsmanager:/.test(a)))).toEqual([{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: commerceSecretId() } }]);
    expect(statements.filter((st) => actionsOf(st).some((a) => a.startsWith('s3:')))).toEqual([exportFileStatement()]);
    const senders = [...AREAS, 'edge-sync' as const].filter((area) => statementsOf(roleOf(functionOf(area))).some((st) => actionsOf(st).some((a) => a.startsWith('sqs:'))));
    expect(senders).toEqual(['admin']);
    expect(statementsOf(roleOf(functionOf('admin'))).filter((st) => actionsOf(st).some((a) => a.startsWith('sqs:')))).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf(jobsQueue()) },
    ]);
    expect(resource(functionOf('admin')).Properties.Environment.Variables.JOBS_QUEUE_URL).toEqual({ Ref: jobsQueue() });
    // Nobody reads the dead-letter queue: only a redrive (an operator's) moves its messages.
    const dlqReaders = idsOf(s.json, 'AWS::IAM::Policy').filter((id) => referencesIn(resource(id).Properties.PolicyDocument).has(deadLetterQueue()));
    expect(dlqReaders).toEqual([]);
  });

  it('bundles the worker into one ES module that loads in Node and exports handler', async () => {
    const key = resource(worker()).Properties.Code.S3Key as string;
    const module = await import(pathToFileURL(join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs')).href);
    expect(typeof module.handler).toBe('function');
  });

  it('outputs the queues’ ARNs for a redrive', () => {
    expect(s.json.Outputs!.JobsDeadLetterQueueArn.Value).toEqual(arnOf(deadLetterQueue()));
    expect(s.json.Outputs!.JobsQueueArn.Value).toEqual(arnOf(jobsQueue()));
  });
});
