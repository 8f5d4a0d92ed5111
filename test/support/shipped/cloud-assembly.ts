import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoPath } from '../../../infra/lib/paths';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>;
  DependsOn?: string | string[];
  Condition?: string;
  Metadata?: Record<string, any>;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, { Type: string; Default?: unknown }>;
  Conditions?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** What `cdk synth` wrote: the stack's template and the assets it names, as `cdk deploy` would publish them. */
export interface CloudAssembly {
  dir: string;
  stackName: string;
  template: CfnTemplate;
  /** The folder of a file asset, by the S3 key the template names (`<hash>.zip`). */
  fileAsset(objectKey: string): string;
  /** The build context and Dockerfile of an image asset, by the image tag the template names. */
  imageAsset(imageTag: string): { context: string; dockerfile: string; platform?: string };
  remove(): void;
}

const run = promisify(execFile);

/**
 * `cdk synth` through the CLI, as a first `cdk deploy` runs it: the app of cdk.json, no context
 * beyond it (no -c: every option at its default), into a fresh folder outside the repository
 * (so a bundle cannot resolve the repository's node_modules at run time).
 */
export async function synthesizeFirstDeploy(): Promise<CloudAssembly> {
  const dir = mkdtempSync(join(tmpdir(), 'stagedoor-shipped-'));
  try {
    await run(repoPath('node_modules/.bin/cdk'), ['synth', '--quiet', '--no-notices', '--output', dir], {
      cwd: repoPath(),
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`cdk synth failed:\n${stderr}\n${stdout}`);
  }
  return readCloudAssembly(dir);
}

export function readCloudAssembly(dir: string): CloudAssembly {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, any> };
  const stacks = Object.entries(manifest.artifacts).filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
  if (stacks.length !== 1) throw new Error(`expected one stack in the cloud assembly, found ${stacks.length}`);
  const [stackName, stack] = stacks[0]!;
  const template = JSON.parse(readFileSync(join(dir, stack.properties.templateFile), 'utf8')) as CfnTemplate;
  const assetsFile = Object.values(manifest.artifacts).find((artifact) => artifact.type === 'cdk:asset-manifest')?.properties.file;
  const assets = JSON.parse(readFileSync(join(dir, assetsFile), 'utf8')) as {
    files: Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }>;
    dockerImages?: Record<string, { source: { directory: string; dockerFile?: string; platform?: string }; destinations: Record<string, { imageTag: string }> }>;
  };
  return {
    dir,
    stackName,
    template,
    fileAsset(objectKey) {
      const asset = Object.values(assets.files).find((file) => Object.values(file.destinations).some((d) => d.objectKey === objectKey));
      if (!asset) throw new Error(`no file asset with object key ${objectKey} in the cloud assembly`);
      const path = join(dir, asset.source.path);
      if (!existsSync(path)) throw new Error(`asset ${objectKey} is listed but ${path} is missing`);
      return path;
    },
    imageAsset(imageTag) {
      const image = Object.values(assets.dockerImages ?? {}).find((entry) => Object.values(entry.destinations).some((d) => d.imageTag === imageTag));
      if (!image) throw new Error(`no image asset tagged ${imageTag} in the cloud assembly`);
      const context = join(dir, image.source.directory);
      return { context, dockerfile: join(context, image.source.dockerFile ?? 'Dockerfile'), platform: image.source.platform };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
