import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import { promisify } from 'node:util';
import { repoPath } from '../../../infra/lib/paths';
import { freePort } from '../../../local/free-port';
import type { LocalStack } from './local-stack';

const exec = promisify(execFile);

interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  entrypoint?: string[];
  cmd?: string[];
  stopSignal?: string;
}

/** What building the image did, for the report. */
export interface ImageBuild {
  stages: number;
  steps: string[];
}

/**
 * The ingest container's image, built from the Dockerfile in the cloud assembly's own build
 * context (what `cdk deploy` would send to Docker) without Docker: each stage is a folder, COPY
 * copies from the context or an earlier stage, RUN runs here, except `npm ci` (the context's lock
 * file must equal the tested one; its node_modules are linked) and `apk add` (the packages' commands
 * must be on this machine). Unknown instructions fail, naming themselves.
 */
export async function buildImage(context: string, dockerfile: string): Promise<{ final: Stage; build: ImageBuild; remove(): void }> {
  const work = mkdtempSync(join(tmpdir(), 'stagedoor-image-'));
  const stages: Stage[] = [];
  const steps: string[] = [];
  let stage: Stage | undefined;
  const inStage = (path: string) => join(stage!.root, posix.isAbsolute(path) ? path : posix.join(stage!.workdir, path));
  try {
    for (const [instruction, args] of instructions(readFileSync(dockerfile, 'utf8'))) {
      if (instruction === 'FROM') {
        const [, name] = /\s+AS\s+(\S+)$/i.exec(args) ?? [];
        stage = { name: name ?? String(stages.length), root: join(work, `stage-${stages.length}`), workdir: '/', env: {} };
        mkdirSync(stage.root, { recursive: true });
        stages.push(stage);
        continue;
      }
      if (!stage) throw new Error(`Dockerfile: ${instruction} before FROM`);
      switch (instruction) {
        case 'WORKDIR':
          stage.workdir = posix.resolve(stage.workdir, args);
          mkdirSync(inStage('.'), { recursive: true });
          break;
        case 'ENV':
          for (const [, key, quoted, plain] of args.matchAll(/(\w+)=(?:"([^"]*)"|(\S*))/g)) stage.env[key!] = quoted ?? plain ?? '';
          break;
        case 'COPY': {
          const from = /^--from=(\S+)\s+/.exec(args);
          const parts = args.replace(/^--from=\S+\s+/, '').split(/\s+/);
          const dest = parts.pop()!;
          const source = from ? stages.find((s) => s.name === from[1]) : undefined;
          if (from && !source) throw new Error(`Dockerfile: COPY --from=${from[1]}: no such stage`);
          for (const part of parts) {
            const src = source ? join(source.root, part) : join(context, part);
            if (!existsSync(src)) throw new Error(`Dockerfile: COPY ${part}: not in ${source ? `stage ${source.name}` : 'the build context'}`);
            const target = dest.endsWith('/') || parts.length > 1 ? join(inStage(dest), posix.basename(part)) : inStage(dest);
            cpSync(src, target, { recursive: true });
          }
          break;
        }
        case 'RUN':
          steps.push(await runStep(stage, args, context));
          break;
        case 'ENTRYPOINT':
          stage.entrypoint = JSON.parse(args);
          break;
        case 'CMD':
          stage.cmd = JSON.parse(args);
          break;
        case 'STOPSIGNAL':
          stage.stopSignal = args;
          break;
        case 'USER':
        case 'EXPOSE':
        case 'HEALTHCHECK':
        case 'LABEL':
          break;
        default:
          throw new Error(`Dockerfile instruction ${instruction} is not built by verify:shipped (test/support/shipped/ingest-task.ts)`);
      }
    }
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
  return { final: stages.at(-1)!, build: { stages: stages.length, steps }, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** Alpine packages that are a toolchain or a library rather than a command, as this machine has them (Debian's names differ). */
const APK_PROBES: Record<string, string> = {
  'build-base': 'command -v gcc && command -v make',
  pkgconf: 'command -v pkg-config',
  'libsrt-dev': 'pkg-config --exists srt',
  libsrt: 'ldconfig -p | grep -q libsrt',
};

async function runStep(stage: Stage, command: string, context: string): Promise<string> {
  const cwd = join(stage.root, stage.workdir);
  if (/^npm ci\b/.test(command)) {
    const tested = readFileSync(repoPath('package-lock.json'), 'utf8');
    if (readFileSync(join(context, 'package-lock.json'), 'utf8') !== tested) throw new Error('the image installs from another package-lock.json than the tested one');
    symlinkSync(repoPath('node_modules'), join(cwd, 'node_modules'));
    return `npm ci: the tested node_modules (same lock file)`;
  }
  const apk = /^apk add (?:--no-cache )?(.+)$/.exec(command);
  if (apk) {
    const packages = apk[1]!.split(/\s+/);
    const present = packages.filter((name) => spawnSync('sh', ['-c', APK_PROBES[name] ?? `command -v ${name}`]).status === 0);
    // tini only forwards signals and reaps children: the task runs without it here.
    const missing = packages.filter((name) => !present.includes(name) && name !== 'tini');
    if (missing.length) throw new Error(`the image needs ${missing.join(', ')}, not found on this machine`);
    return `apk add ${packages.join(' ')}: ${present.join(', ')} from this machine`;
  }
  await exec('sh', ['-c', command], { cwd, env: { ...process.env, ...stage.env, PATH: `${join(cwd, 'node_modules/.bin')}:${process.env.PATH}` } });
  return command.split(/\s+/).slice(0, 3).join(' ');
}

/** A Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): [string, string][] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, instruction, args] = /^(\w+)\s+(.*)$/.exec(line)!;
      return [instruction!.toUpperCase(), args!.trim()];
    });
}

export interface IngestTask {
  /** The RTMP URL OBS would use, on the container's port mapping. */
  rtmpUrl: string;
  environment: Record<string, string>;
  command: string[];
  logs(): string;
  /** The task definition's health check command, run as ECS runs it; its exit code. */
  healthCheck(): Promise<number>;
  /** ECS's stop: the image's stop signal, then SIGKILL after the task definition's stopTimeout. */
  stop(): Promise<{ code: number | null; signal: string | null; withinStopTimeout: boolean }>;
}

/**
 * Starts the container of the ingest task as ECS would: the task definition's environment and
 * secrets (read when the service was created, with the execution role), the image's ENTRYPOINT and
 * CMD unless the task definition overrides them, the task role's credentials from a container
 * credentials endpoint. Local facts replace AWS's: the container port on a free local port, the
 * HTTP API's address on its stand-in, AWS's endpoints on the AWS stand-in.
 */
export async function startIngestTask(
  stack: LocalStack,
  taskId: string,
  image: Stage,
  localUrl: (url: string) => string,
): Promise<IngestTask> {
  const { values, endpoint } = stack;
  const p = values.resolve(values.resource(taskId).Properties) as Record<string, any>;
  const containers = p.ContainerDefinitions as Record<string, any>[];
  if (containers.length !== 1) throw new Error(`task ${taskId}: ${containers.length} containers; verify:shipped runs one`);
  const container = containers[0]!;
  const secrets = (stack.resolvedAtCreation.get(taskId) as Record<string, Record<string, string>>)[container.Name]!;
  const taskRole = values.logicalIdOf(p.TaskRoleArn);
  const containerPort = Number(container.PortMappings?.[0]?.ContainerPort);
  const port = await freePort();
  const inImage = (arg: string) => (isAbsolute(arg) && existsSync(join(image.root, arg)) ? join(image.root, arg) : arg);
  // A path in the image (SRT_GATE_PATH) is its file in the built stage.
  const environment: Record<string, string> = Object.fromEntries(Object.entries(image.env).map(([name, value]) => [name, inImage(value)]));
  for (const { Name, Value } of container.Environment ?? []) environment[Name] = /^https?:\/\//.test(Value) ? localUrl(Value) : Value;
  const local = {
    // The container port, mapped to a free port of this machine; SRT's UDP port too.
    ...(environment.INGEST_LISTEN?.endsWith(`:${containerPort}`) ? { INGEST_LISTEN: `127.0.0.1:${port}` } : {}),
    ...(environment.INGEST_SRT_LISTEN ? { INGEST_SRT_LISTEN: '127.0.0.1:0' } : {}),
    AWS_ENDPOINT_URL: endpoint.url,
    AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.containerCredentialsUri({ name: taskId, roleId: taskRole }),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
  };
  const env = { ...environment, ...secrets, ...local };
  const resolveCommand = (command: string[]) => {
    const args = command[0] === '/sbin/tini' ? command.slice(command.indexOf('--') + 1) : command;
    return args.map((arg, i) => (i === 0 && arg === 'node' ? process.execPath : inImage(arg)));
  };
  const command = resolveCommand([...(container.EntryPoint ?? image.entrypoint ?? []), ...(container.Command ?? image.cmd ?? [])]);
  const cwd = join(image.root, container.WorkingDirectory ?? image.workdir);
  const child: ChildProcess = spawn(command[0]!, command.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const task: IngestTask = {
    rtmpUrl: `rtmp://127.0.0.1:${port}/live`,
    environment: { ...environment, ...Object.fromEntries(Object.keys(secrets).map((name) => [name, '(secret)'])) },
    command,
    logs: () => output,
    async healthCheck() {
      const check = container.HealthCheck?.Command as string[] | undefined;
      if (!check || check[0] !== 'CMD') throw new Error(`task ${taskId}: health check ${JSON.stringify(check)} is not run by verify:shipped`);
      const args = resolveCommand(check.slice(1));
      return spawnSync(args[0]!, args.slice(1), { cwd, env, timeout: Number(container.HealthCheck.Timeout ?? 5) * 1000 }).status ?? -1;
    },
    async stop() {
      const started = Date.now();
      const stopTimeout = Number(container.StopTimeout ?? 30) * 1000;
      if (child.exitCode !== null) return { ...(await exited), withinStopTimeout: true };
      child.kill((image.stopSignal ?? 'SIGTERM') as NodeJS.Signals);
      const killer = setTimeout(() => child.kill('SIGKILL'), stopTimeout);
      const result = await exited;
      clearTimeout(killer);
      return { ...result, withinStopTimeout: Date.now() - started < stopTimeout };
    },
  };
  // Ready when the RTMP port accepts connections (the health check's own test).
  const deadline = Date.now() + 20_000;
  while ((await task.healthCheck()) !== 0) {
    if (child.exitCode !== null) throw new Error(`the ingest task exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`the ingest task did not listen within 20 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return task;
}
