import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Aspects } from 'aws-cdk-lib';
import { Annotations, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildWebAssets } from '../../infra/lib/web-assets';
import { StagedoorStack, type StagedoorConfig } from '../../infra/lib/stagedoor-stack';

export interface Synthesized {
  /** The cloud assembly folder (bundled function code under asset.<hash>/). */
  outdir: string;
  stack: StagedoorStack;
  template: Template;
  annotations: Annotations;
  /** The raw template, for walks that assertions do not offer. */
  json: {
    Resources: Record<string, { Type: string; Properties?: any; DependsOn?: string | string[]; Condition?: string }>;
    Outputs?: Record<string, any>;
    Parameters?: Record<string, any>;
  };
}

/**
 * Builds the web pages and synthesizes the stack once (bundling six functions with
 * esbuild takes a few seconds), with cdk-nag's AwsSolutions pack applied as in the app.
 */
export async function synthesize(config: Omit<StagedoorConfig, 'webBuildDir'> = {}): Promise<Synthesized> {
  const outdir = mkdtempSync(join(tmpdir(), 'stagedoor-cdk-'));
  const app = new App({ outdir });
  const stack = new StagedoorStack(app, 'Stagedoor', { config: { webBuildDir: await buildWebAssets(outdir), ...config } });
  Aspects.of(app).add(new AwsSolutionsChecks());
  const template = Template.fromStack(stack);
  return { outdir, stack, template, annotations: Annotations.fromStack(stack), json: template.toJSON() as Synthesized['json'] };
}

/** Logical ids of the resources of one type whose properties satisfy `test`. */
export function idsOf(json: Synthesized['json'], type: string, test: (properties: any) => boolean = () => true): string[] {
  return Object.entries(json.Resources)
    .filter(([, resource]) => resource.Type === type && test(resource.Properties ?? {}))
    .map(([id]) => id);
}
