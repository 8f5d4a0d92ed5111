import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { repoPath } from '../../../infra/lib/paths';
import type { CloudFrontRequest, EdgeHandler } from '../../../local/media-edge-runtime';
import type { StripeFake } from '../../../local/stripe-fake';
import { call, type HttpResult } from '../../../harness/http';
import { outcomeOf, type Outcome } from '../validator-cases';
import type { HttpApiStandIn } from './api-gateway';
import type { DistributionStandIn } from './distribution';
import { DEPLOYER, type LocalStack } from './local-stack';
import { LOCAL_ACCOUNT } from './stack-values';

const run = promisify(execFile);

/** One route's part of the story: the route key it drives, and what it sends and expects. */
export interface RouteStory {
  route: string;
  run(s: StoryContext): Promise<void>;
}

export const story = (route: string, run: (s: StoryContext) => Promise<void>): RouteStory => ({ route, run });

/** A request to a CloudFront Function with the KeyValueStore as it was, and its outcome in Node: replayed under njs. */
export interface EdgeCase {
  name: string;
  functionId: string;
  request: CloudFrontRequest;
  store: Record<string, string>;
  outcome: Outcome;
}

interface CallOptions {
  json?: unknown;
  /** A body sent as is (a signature covers its exact bytes). */
  body?: string;
  cookie?: string;
  bearer?: string;
  headers?: Record<string, string>;
  from?: string;
}

/**
 * What the stories work with. Browsers' requests (viewer page, console) go through the
 * distribution, as in AWS; the ingest's and operators' internal calls go to the HTTP API's own
 * endpoint, as the task definition wires them. Stories keep what later ones need in `state`.
 */
export class StoryContext {
  readonly state: Record<string, any> = {};
  readonly edgeCases: EdgeCase[] = [];
  /** The Origin header of the pages: the distribution's `https://` address. */
  readonly siteOrigin: string;
  private nextClient = 0;

  constructor(
    readonly stack: LocalStack,
    readonly gateway: HttpApiStandIn,
    readonly distribution: DistributionStandIn,
    readonly adminPassword: string,
    /** The stand-in of Stripe's API: its sessions, and its "Pay" button. */
    readonly stripe: StripeFake,
  ) {
    this.siteOrigin = `https://${distribution.domainName}`;
  }

  /** A fresh client address (127.77.x.y): each sign-in and viewer is its own client for the per-address limits. */
  client(): string {
    this.nextClient++;
    return `127.77.${Math.floor(this.nextClient / 250)}.${(this.nextClient % 250) + 1}`;
  }

  /** A browser's request to the site: through the distribution, with the page's Origin on writes. */
  site(method: string, path: string, options: CallOptions = {}): Promise<HttpResult> {
    const write = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    return this.send(`${this.distribution.url}${path}`, method, options, write ? { origin: this.siteOrigin } : {});
  }

  /** A request to the HTTP API's own endpoint (what the ingest task calls). */
  api(method: string, path: string, options: CallOptions = {}): Promise<HttpResult> {
    return this.send(`${this.gateway.url}${path}`, method, options, {});
  }

  /** A URL the API handed out (`https://<distribution>/…`), fetched through the local distribution. */
  fetch(url: string, options: CallOptions = {}): Promise<HttpResult> {
    const parsed = new URL(url);
    if (parsed.host !== this.distribution.domainName) throw new Error(`${url} is not on the distribution ${this.distribution.domainName}`);
    return this.send(`${this.distribution.url}${parsed.pathname}${parsed.search}`, 'GET', options, {});
  }

  /** An admin request with the session cookie; it must answer `status`. */
  async admin(method: string, path: string, json?: unknown, status = 200): Promise<any> {
    return this.expect(await this.site(method, path, { json, cookie: this.state.cookie }), status, `${method} ${path}`);
  }

  expect(res: HttpResult, status: number, what: string): any {
    if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 500)}`);
    return res.body;
  }

  check(condition: unknown, message: string): void {
    if (!condition) throw new Error(message);
  }

  /** A stack output's value (`AdminSecretArn`, `StaffTableName`...), as `cdk deploy` prints it. */
  output(name: string): string {
    const output = this.stack.values.template.Outputs?.[name];
    if (!output) throw new Error(`the template has no output ${name}`);
    return this.stack.values.text(output.Value);
  }

  /**
   * An operator's script of infra/scripts (docs/deploy.md) run as a deploy's operator does: in its
   * own process, with the shell's AWS credentials (the deployer's) and region. What it printed.
   */
  async operator(script: string, args: string[], env: Record<string, string> = {}): Promise<string> {
    const credentials = this.stack.endpoint.credentialsFor(DEPLOYER);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', `infra/scripts/${script}`, ...args], {
      cwd: repoPath(),
      env: {
        PATH: process.env.PATH,
        ...env,
        AWS_REGION: LOCAL_ACCOUNT.region,
        AWS_ENDPOINT_URL: this.stack.endpoint.url,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_SESSION_TOKEN: credentials.sessionToken,
      },
    });
    return stdout;
  }

  /** The internal API key, read from the shared secret (output `SecretsArn`) as an operator would. */
  async internalApiKey(): Promise<string> {
    return this.secretField('SecretsArn', 'internalApiKey');
  }

  /** What shops sign order deliveries with, read from the commerce secret (output `CommerceSecretArn`) as an organiser would. */
  async orderWebhookSecret(): Promise<string> {
    return this.secretField('CommerceSecretArn', 'orderWebhookSecret');
  }

  /** Sets one field of the secret the output names, keeping the others, as an operator would (`aws secretsmanager put-secret-value`). */
  async setSecretField(output: string, field: string, value: string): Promise<void> {
    const client = this.stack.deployerClient((config) => new SecretsManagerClient(config));
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: this.output(output) }));
    await client.send(new PutSecretValueCommand({ SecretId: this.output(output), SecretString: JSON.stringify({ ...JSON.parse(SecretString!), [field]: value }) }));
    client.destroy();
  }

  private async secretField(output: string, field: string): Promise<string> {
    const client = this.stack.deployerClient((config) => new SecretsManagerClient(config));
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: this.output(output) }));
    client.destroy();
    return JSON.parse(SecretString!)[field];
  }

  /** Lambda's stream pollers run: every table change so far reaches edge-sync (and whatever else reads the streams). */
  async streamsDelivered(): Promise<void> {
    for (const source of this.stack.streamSources) await source.deliver((id, event) => this.stack.lambda.invoke(id, event));
  }

  /** Lambda's queue pollers run: every message visible now reaches its function (the job worker), batch by batch. */
  async queuesDelivered(): Promise<number> {
    let count = 0;
    for (const source of this.stack.queueSources) count += await source.deliver((id, event) => this.stack.lambda.invoke(id, event));
    return count;
  }

  /**
   * A viewer's HLS request at the edge: the distribution's viewer-request function for `path` runs
   * on it (in Node, against the KeyValueStore as edge-sync left it), its outcome must be
   * `expected` (pass, or a status), and the same request through the distribution must answer as
   * that outcome implies (the origin's 404 while nothing is published). Kept for the njs replay.
   */
  async edge(name: string, url: string, expected: 'pass' | number, auth: { bearer?: string } = {}): Promise<HttpResult> {
    const parsed = new URL(url);
    const { functionId, handler, store } = this.distribution.viewerRequestFunction(parsed.pathname);
    const request: CloudFrontRequest = {
      method: 'GET',
      uri: parsed.pathname,
      querystring: Object.fromEntries([...parsed.searchParams].map(([key, value]) => [key, { value }])),
      headers: { host: { value: this.distribution.domainName }, ...(auth.bearer ? { authorization: { value: `Bearer ${auth.bearer}` } } : {}) },
    };
    const outcome = outcomeOf(await (handler as EdgeHandler)({ version: '1.0', request: structuredClone(request) }));
    this.edgeCases.push({ name, functionId, request, store: Object.fromEntries(store), outcome });
    const got = 'pass' in outcome ? 'pass' : outcome.status;
    this.check(got === expected, `edge, ${name}: expected ${expected}, the function gave ${JSON.stringify(outcome)} with the KeyValueStore holding ${[...store.keys()].join(', ')}`);
    const res = await this.fetch(url, { bearer: auth.bearer });
    if (expected !== 'pass') this.expect(res, expected, `edge, ${name}, through the distribution`);
    else this.check(res.status === 200 || res.status === 404, `edge, ${name}: passed the function but the origin answered ${res.status} ${res.text.slice(0, 300)}`);
    return res;
  }

  private send(url: string, method: string, options: CallOptions, extra: Record<string, string>): Promise<HttpResult> {
    return call(method, url, {
      json: options.json,
      body: options.body,
      from: options.from,
      headers: {
        ...extra,
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
        ...options.headers,
      },
    });
  }
}

/** The `name=value` of a Set-Cookie the answer carries. */
export function cookieOf(res: HttpResult, name: string): string | undefined {
  return ([res.headers['set-cookie'] ?? []].flat() as string[]).map((line) => line.split(';')[0]!).find((pair) => pair.startsWith(`${name}=`));
}

/**
 * Holds the stories against the template's routes: a route without a story, or a story whose
 * route the template lacks, fails.
 */
export function checkStoryCoverage(s: StoryContext, stories: RouteStory[]): void {
  const routes = new Set(s.gateway.routes.map((route) => route.key));
  const missing = [...routes].filter((key) => !stories.some((entry) => entry.route === key));
  const unknown = stories.filter((entry) => !routes.has(entry.route)).map((entry) => entry.route);
  if (missing.length || unknown.length) {
    throw new Error(
      [
        ...missing.map((key) => `route ${key} has no story in verify:shipped (add one to test/support/shipped/story.ts)`),
        ...unknown.map((key) => `story for ${key}, but the template has no such route`),
      ].join('\n'),
    );
  }
}

/** Runs stories in order, each checked to reach its route. */
export async function runStories(s: StoryContext, stories: RouteStory[]): Promise<void> {
  const routes = new Map(s.gateway.routes.map((route) => [route.key, route]));
  for (const entry of stories) {
    const route = routes.get(entry.route)!;
    const before = route.statuses.length;
    try {
      await entry.run(s);
    } catch (error) {
      throw new Error(`story of ${entry.route}: ${(error as Error).message}`);
    }
    if (route.statuses.length === before) throw new Error(`the story of ${entry.route} never reached that route`);
  }
}

/**
 * The stories cut into chapters, each starting at the route named: a chapter is one test with its
 * own time, so a slow machine stretches each a little instead of one long test past its limit.
 */
export function chaptersOf(stories: RouteStory[], starts: Array<[name: string, firstRoute: string]>): Array<{ name: string; stories: RouteStory[] }> {
  const indexes = starts.map(([name, first]) => {
    const index = stories.findIndex((entry) => entry.route === first);
    if (index < 0) throw new Error(`chapter ${name} starts at ${first}, which has no story`);
    return index;
  });
  if (indexes[0] !== 0 || indexes.some((index, i) => i > 0 && index <= indexes[i - 1]!)) throw new Error('chapters start at the first story and follow the stories\' order');
  return starts.map(([name], i) => ({ name, stories: stories.slice(indexes[i], indexes[i + 1] ?? stories.length) }));
}
