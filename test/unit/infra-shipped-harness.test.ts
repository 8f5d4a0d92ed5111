/**
 * The parts of verify:shipped (test/e2e/infra-shipped.test.ts) that decide pass or fail, on small
 * templates: a route without a story, CloudFormation's intrinsics, Lambda's event filters, the
 * KeyValueStore's rules and the IAM evaluation of a role and of a function's permissions.
 */
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../support/shipped/cloud-assembly';
import { matchesFilter } from '../../local/triggers/filter';
import { IamModel } from '../support/shipped/iam';
import { KeyValueStoreStandIn, KVS_LIMITS } from '../support/shipped/key-value-store';
import { StackValues } from '../support/shipped/stack-values';
import { chaptersOf, checkStoryCoverage, runStories, story, type StoryContext } from '../support/shipped/story-runner';

const template: CfnTemplate = {
  Parameters: { Limit: { Type: 'Number', Default: 0 } },
  Conditions: { LimitSet: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'Limit' }, 0] }] } },
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
    Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
    Role: { Type: 'AWS::IAM::Role', Properties: { AssumeRolePolicyDocument: { Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }] } } },
    Policy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        Roles: [{ Ref: 'Role' }],
        PolicyDocument: {
          Statement: [
            { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [{ 'Fn::GetAtt': ['Table', 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/byEvent']] }] },
          ],
        },
      },
    },
    Invoke: {
      Type: 'AWS::Lambda::Permission',
      Properties: { Action: 'lambda:InvokeFunction', FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] }, Principal: 'apigateway.amazonaws.com', SourceArn: { 'Fn::Sub': 'arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:api1/*/*/api/events/{id}/status' } },
    },
    Acl: { Type: 'AWS::WAFv2::WebACL', Condition: 'LimitSet', Properties: {} },
  },
};

describe('stories against the template\'s routes', () => {
  const context = (keys: string[]) => ({ gateway: { routes: keys.map((key) => ({ key, statuses: [] as number[] })) } }) as unknown as StoryContext;

  it('fails on a route without a story and on a story without a route, naming both', async () => {
    const s = context(['GET /api/a', 'POST /api/orders/webhook']);
    expect(() => checkStoryCoverage(s, [story('GET /api/a', async () => undefined), story('GET /api/gone', async () => undefined)])).toThrow(
      /route POST \/api\/orders\/webhook has no story in verify:shipped[\s\S]*story for GET \/api\/gone, but the template has no such route/,
    );
  });

  it('fails when a story never reaches its route', async () => {
    await expect(runStories(context(['GET /api/a']), [story('GET /api/a', async () => undefined)])).rejects.toThrow('the story of GET /api/a never reached that route');
  });

  it('passes when every route is reached by its story', async () => {
    const s = context(['GET /api/a']);
    const reach = story('GET /api/a', async (ctx) => void ctx.gateway.routes[0]!.statuses.push(200));
    expect(() => checkStoryCoverage(s, [reach])).not.toThrow();
    await runStories(s, [reach]);
    expect(s.gateway.routes[0]!.statuses).toEqual([200]);
  });

  it('cuts the stories into chapters at the routes named, in order, and refuses a chapter that starts nowhere', () => {
    const stories = ['GET /api/a', 'GET /api/b', 'GET /api/c'].map((route) => story(route, async () => undefined));
    const chapters = chaptersOf(stories, [['one', 'GET /api/a'], ['two', 'GET /api/c']]);
    expect(chapters.map((chapter) => [chapter.name, chapter.stories.map((entry) => entry.route)])).toEqual([
      ['one', ['GET /api/a', 'GET /api/b']],
      ['two', ['GET /api/c']],
    ]);
    expect(() => chaptersOf(stories, [['one', 'GET /api/a'], ['two', 'GET /api/x']])).toThrow('chapter two starts at GET /api/x, which has no story');
    expect(() => chaptersOf(stories, [['one', 'GET /api/b']])).toThrow('chapters start at the first story');
  });
});

describe('template values', () => {
  const values = new StackValues(template, 'Stack');

  it('resolves references, joins, substitutions and conditions in the local account', () => {
    expect(values.text({ 'Fn::GetAtt': ['Table', 'Arn'] })).toMatch(/^arn:aws:dynamodb:us-east-1:123456789012:table\/Stack-Table-[A-Z0-9]{12}$/);
    expect(values.text({ 'Fn::Select': [1, { 'Fn::Split': ['/', { 'Fn::Sub': 'a/${Bucket}/b' }] }] })).toBe(values.ref('Bucket'));
    expect(values.condition('LimitSet')).toBe(false);
    expect(values.exists('Acl')).toBe(false);
    expect(values.resolve({ 'Fn::If': ['LimitSet', 'on', { Ref: 'AWS::NoValue' }] })).toBeUndefined();
  });

  it('names the resource and attribute it does not know', () => {
    expect(() => values.getAtt('Bucket', 'DualStackDomainName')).toThrow('verify:shipped does not know Fn::GetAtt Bucket.DualStackDomainName (AWS::S3::Bucket)');
  });

  it('orders dependencies: DependsOn and references', () => {
    expect([...values.dependenciesOf('Policy')].sort()).toEqual(['Role', 'Table']);
  });
});

describe('Lambda event filters', () => {
  const pattern = { dynamodb: { Keys: { pk: { S: [{ prefix: 'CODE#' }, { prefix: 'EVENT#' }] } } } };
  const record = (pk: string) => ({ dynamodb: { Keys: { pk: { S: pk } } } });

  it('keep what a prefix names and drop the rest', () => {
    expect(matchesFilter(pattern, record('CODE#ABC'))).toBe(true);
    expect(matchesFilter(pattern, record('RATE#1.2.3.4'))).toBe(false);
    expect(matchesFilter({ eventName: [{ 'anything-but': 'REMOVE' }] }, { eventName: 'MODIFY' })).toBe(true);
  });

  it('refuse an operator they do not implement, rather than pass everything', () => {
    expect(() => matchesFilter({ a: [{ wildcard: '*x' }] }, { a: 'yx' })).toThrow('filter rule wildcard is not implemented');
  });
});

describe('KeyValueStore stand-in', () => {
  const arn = 'arn:aws:cloudfront::123456789012:key-value-store/k';
  const url = new URL(`http://kvs/key-value-stores/${encodeURIComponent(arn)}/keys`);
  const update = (kvs: KeyValueStoreStandIn, etag: string, puts: { Key: string; Value: string }[]) =>
    kvs.handle('POST', url, { 'if-match': etag }, JSON.stringify({ Puts: puts }));

  it('takes writes at the current ETag only', () => {
    const kvs = new KeyValueStoreStandIn();
    kvs.create(arn);
    expect(update(kvs, 'ETAG1', [{ Key: 'k:1', Value: 'v' }])).toMatchObject({ status: 200, headers: { etag: 'ETAG2' } });
    expect(update(kvs, 'ETAG1', [{ Key: 'k:2', Value: 'v' }])).toMatchObject({ status: 409, headers: { 'x-amzn-errortype': 'ConflictException' } });
    expect([...kvs.entries(arn)]).toEqual([['k:1', 'v']]);
  });

  it('refuses keys and values over CloudFront\'s limits', () => {
    const kvs = new KeyValueStoreStandIn();
    kvs.create(arn);
    expect(update(kvs, 'ETAG1', [{ Key: 'x'.repeat(KVS_LIMITS.keyBytes + 1), Value: 'v' }]).status).toBe(400);
    expect(update(kvs, 'ETAG1', [{ Key: 'k', Value: 'x'.repeat(KVS_LIMITS.valueBytes + 1) }]).status).toBe(400);
    expect(kvs.entries(arn).size).toBe(0);
  });
});

describe('IAM evaluation', () => {
  const values = new StackValues(template, 'Stack');
  const iam = new IamModel(values);
  const caller = { name: 'Fn', roleId: 'Role' };
  const table = values.getAtt('Table', 'Arn');

  it('allows what the role\'s policies grant, and says which statement did', async () => {
    expect(await iam.authorize(caller, { action: 'dynamodb:Query', resource: `${table}/index/byEvent`, context: {} })).toEqual({
      allowed: true,
      result: 'Allowed',
      statements: ['Policy#0'],
    });
  });

  it('denies an index, an action or a table it does not grant', async () => {
    for (const [action, resource] of [['dynamodb:Query', `${table}/index/other`], ['dynamodb:PutItem', table], ['dynamodb:GetItem', `${table}2`]]) {
      expect((await iam.authorize(caller, { action: action!, resource: resource!, context: {} })).result, `${action} ${resource}`).toBe('ImplicitlyDenied');
    }
  });

  it('lets API Gateway invoke the function only for the route its permission names', async () => {
    const apigateway = { name: 'apigateway', service: 'apigateway.amazonaws.com' };
    const invoke = (route: string) =>
      iam.authorize(apigateway, {
        action: 'lambda:InvokeFunction',
        resource: values.getAtt('Fn', 'Arn'),
        context: { 'aws:SourceArn': `arn:aws:execute-api:us-east-1:123456789012:api1/$default/GET${route}` },
      });
    expect((await invoke('/api/events/{id}/status')).allowed).toBe(true);
    expect((await invoke('/api/admin/events')).allowed).toBe(false);
  });

  it('reads the role\'s trust', () => {
    expect(iam.trustedServices('Role')).toEqual(['lambda.amazonaws.com']);
  });
});
