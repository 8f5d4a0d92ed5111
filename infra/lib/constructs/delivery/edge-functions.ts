import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { DIRECTORY_INDEX_FILE, MEDIA_GUARD_FILE } from './settings';

export interface EdgeFunctions {
  keyValueStore: cloudfront.KeyValueStore;
  /** Viewer requests of /streams/*. */
  mediaGuard: cloudfront.Function;
  /** Viewer requests of the pages. */
  directoryIndex: cloudfront.Function;
}

/** The two CloudFront Functions and the KeyValueStore the media guard reads. */
export function edgeFunctions(scope: Construct): EdgeFunctions {
  // Signing keys (k:<kid>) and revocations (c:, e:, s:); written by the edge-sync function.
  const keyValueStore = new cloudfront.KeyValueStore(scope, 'Revocations', {
    comment: 'Stagedoor playback signing keys and revocations (docs/delivery.md)',
  });
  const mediaGuard = new cloudfront.Function(scope, 'MediaGuard', {
    comment: 'Checks the playback JWT and revocations on /streams/*',
    code: cloudfront.FunctionCode.fromFile({ filePath: MEDIA_GUARD_FILE }),
    runtime: cloudfront.FunctionRuntime.JS_2_0,
    keyValueStore,
  });
  const directoryIndex = new cloudfront.Function(scope, 'DirectoryIndex', {
    comment: 'Serves <dir>/index.html for /admin/ and other folder URLs',
    code: cloudfront.FunctionCode.fromFile({ filePath: DIRECTORY_INDEX_FILE }),
    runtime: cloudfront.FunctionRuntime.JS_2_0,
  });
  return { keyValueStore, mediaGuard, directoryIndex };
}
