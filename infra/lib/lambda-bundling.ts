import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda function is bundled: esbuild, one ES module for Node 22 with
 * its dependencies inlined. `AppFunction` hands these to NodejsFunction and
 * `bench/lambda-bundles.ts` to esbuild, so the benchmark measures what ships.
 */
export const LAMBDA_BUNDLING = {
  target: 'node22',
  minify: true,
  // The SDK's ES builds let esbuild drop what a handler never calls; its CommonJS
  // builds (esbuild's first pick for Node) come whole, browser helpers included.
  mainFields: ['module', 'main'],
  /**
   * Left out of the bundle: the credential providers that the SDK's default chain
   * imports lazily, only after the environment had no credentials. Lambda always
   * hands a function its role's credentials in the environment, first in that
   * chain, so these never load there (and the nodejs22.x runtime carries them).
   */
  externalModules: [
    '@aws-sdk/credential-provider-http',
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-login',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-web-identity',
    '@aws-sdk/nested-clients',
    '@aws-sdk/token-providers',
    '@smithy/credential-provider-imds',
  ],
  // Lets bundled CommonJS dependencies call require() inside the ES module.
  banner: "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);",
} as const;

/** esbuild's options for bundling `entry` as the CDK app does (`external`: other modules left to the runtime, for comparison). */
export function lambdaBuildOptions(entry: string, external: readonly string[] = LAMBDA_BUNDLING.externalModules): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    external: [...external],
    banner: { js: LAMBDA_BUNDLING.banner },
    metafile: true,
    logLevel: 'error',
  };
}
