import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { getApp } from '../app';

/** Puts the process-wide App (config, store) on `context.app`; built on the first request. */
export function appContext(): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    before: async function loadApp(request) {
      request.context.app = await getApp();
    },
  };
}
