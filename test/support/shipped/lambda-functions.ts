import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAMBDA_BUNDLING } from '../../../infra/lib/lambda-bundling';
import type { AwsEndpoint } from './aws-endpoint';
import type { CloudAssembly } from './cloud-assembly';
import type { Caller } from './iam';
import { LOCAL_ACCOUNT, type StackValues } from './stack-values';

const HOST = fileURLToPath(new URL('./lambda-host.mjs', import.meta.url));

/** Environment keys Lambda reserves: a function that sets one fails to deploy. */
const RESERVED_KEYS = new Set([
  '_HANDLER', '_X_AMZN_TRACE_ID', 'AWS_DEFAULT_REGION', 'AWS_REGION', 'AWS_EXECUTION_ENV', 'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE', 'AWS_LAMBDA_FUNCTION_VERSION', 'AWS_LAMBDA_INITIALIZATION_TYPE', 'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME', 'AWS_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API', 'LAMBDA_TASK_ROOT', 'LAMBDA_RUNTIME_DIR',
]);
/** Lambda's quota on a function's environment variables: 4 KB in total. */
const ENVIRONMENT_BYTES = 4096;
/** Lambda's synchronous invocation payload quota, request and response. */
export const PAYLOAD_BYTES = 6 * 1024 * 1024;

export class FunctionError extends Error {
  constructor(
    readonly functionId: string,
    readonly errorType: string,
    message: string,
  ) {
    super(`${functionId} failed: ${errorType}: ${message}`);
  }
}

/** What the host answers an invocation with. */
interface Reply {
  result?: unknown;
  error?: { errorType: string; errorMessage: string };
  /** Every package the process tried to load so far that the bundle does not contain. */
  leftOut: string[];
}

interface Pending {
  resolve(value: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** One function of the template, as Lambda would run it. */
export interface DeployedFunction {
  id: string;
  name: string;
  arn: string;
  description: string;
  caller: Caller;
  assetDir: string;
  /** The environment the template gives it, resolved. */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  invocations: number;
  coldStarts: number;
  /** The first event it was given: replayed by the negative control of the left-out packages. */
  firstEvent?: unknown;
  /** Packages the bundle tried to load that it does not contain (none may appear on Lambda). */
  leftOutLoaded: Set<string>;
  /** Packages the bundle leaves out and imports lazily (`import("…")` in its code). */
  leftOutDeclared: string[];
  logs: string[];
}

/**
 * The Lambda service for the template's functions: each of this project's bundles (cdk.out's
 * asset, built by infra/lib/lambda-bundling.ts) runs in its own fresh Node process with only the
 * environment the template gives it plus what Lambda adds (its role's credentials, region, names),
 * one invocation at a time, killed and started again (a cold start) when it overruns its timeout.
 * CDK's own handlers (provider frameworks, bucket deployment) are listed but not run.
 */
export class LambdaService {
  readonly functions = new Map<string, DeployedFunction>();
  /** Functions of the template that are not this project's bundles (CDK's handlers), with why they are not run. */
  readonly notRun = new Map<string, string>();
  readonly problems: string[] = [];
  private readonly hosts = new Map<string, { child: ChildProcess; ready: Promise<void>; pending: Map<string, Pending> }>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly values: StackValues,
    private readonly assembly: CloudAssembly,
    private readonly endpoint: AwsEndpoint,
    /** The stand-in of Stripe's API (local/stripe-fake.ts), where the functions' Stripe SDK is sent (`STRIPE_API_URL`). */
    private readonly stripeApiUrl: string,
  ) {}

  /** Takes AWS::Lambda::Function `id` into service (the process starts on its first invocation). */
  deploy(id: string): void {
    const p = this.values.resource(id).Properties ?? {};
    const path = this.values.resource(id).Metadata?.['aws:cdk:path'] ?? id;
    const key = p.Code?.S3Key ? this.values.text(p.Code.S3Key) : undefined;
    const assetDir = key ? this.assembly.fileAsset(key) : undefined;
    const entry = assetDir && join(assetDir, 'index.mjs');
    if (!String(p.Runtime).startsWith('nodejs') || !entry || !existsSync(entry) || !readFileSync(entry, 'utf8').startsWith(LAMBDA_BUNDLING.banner)) {
      this.notRun.set(id, `${path} (${p.Runtime}, ${p.Handler}): not built by infra/lib/lambda-bundling.ts`);
      return;
    }
    const roleId = this.values.logicalIdOf(this.values.text(p.Role));
    if (!roleId) throw new Error(`${id}: its role ${JSON.stringify(p.Role)} is not in the template`);
    const environment = Object.fromEntries(
      Object.entries((p.Environment?.Variables ?? {}) as Record<string, unknown>).map(([name, value]) => [name, this.values.text(value)]),
    );
    const reserved = Object.keys(environment).filter((name) => RESERVED_KEYS.has(name));
    if (reserved.length) this.problems.push(`${id}: sets Lambda's reserved environment variables ${reserved.join(', ')}: the deploy fails`);
    const size = Object.entries(environment).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
    if (size > ENVIRONMENT_BYTES) this.problems.push(`${id}: environment of ${size} bytes is over Lambda's ${ENVIRONMENT_BYTES}: the deploy fails`);
    const source = readFileSync(entry, 'utf8');
    this.functions.set(id, {
      id,
      name: this.values.ref(id),
      arn: this.values.getAtt(id, 'Arn'),
      description: String(p.Description ?? path),
      caller: { name: id, roleId },
      assetDir: assetDir!,
      environment,
      timeoutSeconds: Number(p.Timeout ?? 3),
      memoryMb: Number(p.MemorySize ?? 128),
      invocations: 0,
      coldStarts: 0,
      leftOutLoaded: new Set(),
      leftOutDeclared: [...new Set([...source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!).filter((name) => !isBuiltin(name)))].sort(),
      logs: [],
    });
  }

  get(id: string): DeployedFunction {
    const fn = this.functions.get(id);
    if (!fn) throw new Error(`${id} is not one of this project's functions (${this.notRun.get(id) ?? 'not in the template'})`);
    return fn;
  }

  /** The function an ARN or name refers to (an integration URI, an event source mapping's FunctionName). */
  idOf(nameOrArn: string): string | undefined {
    const plain = nameOrArn.replace(/:(\$LATEST|\d+)$/, '');
    return this.values.logicalIdOf(plain);
  }

  /** One invocation, after the ones before it (one instance of the function). */
  async invoke(id: string, event: unknown): Promise<any> {
    const { result, error } = await this.enqueue(id, id, event, false);
    if (error) throw new FunctionError(id, error.errorType, error.errorMessage);
    const size = Buffer.byteLength(JSON.stringify(result));
    if (size > PAYLOAD_BYTES) throw new FunctionError(id, 'Function.ResponseSizeTooLarge', `response of ${size} bytes is over Lambda's 6 MB`);
    return result;
  }

  /**
   * The negative control of the left-out packages: the same event in another instance whose
   * environment lacks the role's credentials. What it tries to load is what Lambda's credentials
   * keep from loading (the SDK's credential chain goes on to its lazily loaded providers).
   */
  async leftOutWithoutCredentials(id: string, event: unknown): Promise<string[]> {
    const hostKey = `${id}#no-credentials`;
    try {
      return (await this.enqueue(id, hostKey, event, true)).leftOut;
    } finally {
      this.stopHost(hostKey);
    }
  }

  private enqueue(id: string, hostKey: string, event: unknown, withoutCredentials: boolean): Promise<Reply> {
    const fn = this.get(id);
    const size = Buffer.byteLength(JSON.stringify(event));
    if (size > PAYLOAD_BYTES) return Promise.reject(new Error(`${id}: an event of ${size} bytes is over Lambda's 6 MB`));
    const previous = this.queues.get(hostKey) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.run(fn, hostKey, event, withoutCredentials));
    this.queues.set(hostKey, next);
    return next;
  }

  private async run(fn: DeployedFunction, hostKey: string, event: unknown, withoutCredentials: boolean): Promise<Reply> {
    const host = this.host(fn, hostKey, withoutCredentials);
    await host.ready;
    if (!withoutCredentials) {
      fn.invocations++;
      fn.firstEvent ??= event;
    }
    const requestId = randomUUID();
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        host.pending.delete(requestId);
        this.stopHost(hostKey);
        reject(new FunctionError(fn.id, 'Sandbox.Timedout', `Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`));
      }, fn.timeoutSeconds * 1000);
      host.pending.set(requestId, { resolve, reject, timer });
      host.child.send({
        id: requestId,
        event,
        context: {
          functionName: fn.name,
          functionVersion: '$LATEST',
          invokedFunctionArn: fn.arn,
          memoryLimitInMB: String(fn.memoryMb),
          awsRequestId: requestId,
          logGroupName: `/aws/lambda/${fn.name}`,
          logStreamName: 'local',
          timeoutMs: fn.timeoutSeconds * 1000,
        },
      });
    });
    if (!withoutCredentials) for (const name of reply.leftOut) fn.leftOutLoaded.add(name);
    return reply;
  }

  /** What a cold start in Lambda has: the function's environment, Lambda's variables, its role's credentials. */
  private host(fn: DeployedFunction, hostKey: string, withoutCredentials: boolean) {
    const running = this.hosts.get(hostKey);
    if (running && running.child.exitCode === null && running.child.signalCode === null) return running;
    if (!withoutCredentials) fn.coldStarts++;
    const credentials = this.endpoint.credentialsFor(fn.caller);
    const env: Record<string, string> = {
      ...fn.environment,
      _HANDLER: String(this.values.resource(fn.id).Properties?.Handler),
      AWS_REGION: LOCAL_ACCOUNT.region,
      AWS_DEFAULT_REGION: LOCAL_ACCOUNT.region,
      AWS_EXECUTION_ENV: `AWS_Lambda_${this.values.resource(fn.id).Properties?.Runtime}`,
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
      AWS_LAMBDA_LOG_STREAM_NAME: 'local',
      ...logging(this.values.resolve(this.values.resource(fn.id).Properties?.LoggingConfig)),
      ...(withoutCredentials
        ? {}
        : { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey, AWS_SESSION_TOKEN: credentials.sessionToken }),
      LAMBDA_TASK_ROOT: fn.assetDir,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      PATH: '/usr/local/bin:/usr/bin:/bin',
      // The stand-ins of AWS's endpoints and of Stripe's API (the only variables the template does not give).
      AWS_ENDPOINT_URL: this.endpoint.url,
      AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE: this.endpoint.hostUrl,
      // Stripe's, outside AWS: no test reaches the internet.
      STRIPE_API_URL: this.stripeApiUrl,
    };
    const child = fork(HOST, [], { cwd: fn.assetDir, env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const pending = new Map<string, Pending>();
    const keep = (chunk: Buffer) => {
      fn.logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (fn.logs.length > 400) fn.logs.splice(0, fn.logs.length - 400);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const ready = new Promise<void>((resolve, reject) => {
      child.once('exit', (code, signal) => {
        const error = new FunctionError(fn.id, 'Runtime.ExitError', `process exited (${code ?? signal}) ${fn.logs.slice(-20).join('\n')}`);
        reject(error);
        for (const [, waiting] of pending) {
          clearTimeout(waiting.timer);
          waiting.reject(error);
        }
        pending.clear();
      });
      child.on('message', (message: { ready?: boolean; id?: string; leftOut: string[] }) => {
        if (message.ready) {
          if (!withoutCredentials) for (const name of message.leftOut) fn.leftOutLoaded.add(name);
          return resolve();
        }
        const waiting = pending.get(message.id!);
        if (!waiting) return;
        pending.delete(message.id!);
        clearTimeout(waiting.timer);
        waiting.resolve(message as Reply);
      });
    });
    ready.catch(() => undefined);
    const host = { child, ready, pending };
    this.hosts.set(hostKey, host);
    return host;
  }

  private stopHost(hostKey: string): void {
    const host = this.hosts.get(hostKey);
    if (host && host.child.exitCode === null) host.child.kill('SIGKILL');
    this.hosts.delete(hostKey);
  }

  async close(): Promise<void> {
    const exits = [...this.hosts.values()].map(
      (host) => new Promise<void>((resolve) => (host.child.exitCode !== null || host.child.signalCode !== null ? resolve() : host.child.once('exit', () => resolve()))),
    );
    for (const key of [...this.hosts.keys()]) this.stopHost(key);
    await Promise.all(exits);
  }
}

/** What LoggingConfig puts in the environment (JSON logs, levels). */
function logging(config: { LogFormat?: string; ApplicationLogLevel?: string; SystemLogLevel?: string } | undefined): Record<string, string> {
  if (!config) return {};
  return {
    ...(config.LogFormat ? { AWS_LAMBDA_LOG_FORMAT: config.LogFormat } : {}),
    ...(config.ApplicationLogLevel ? { AWS_LAMBDA_LOG_LEVEL: config.ApplicationLogLevel } : {}),
  };
}
