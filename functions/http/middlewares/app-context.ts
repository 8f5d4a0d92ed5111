import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import type { App } from '../app';

/** Puts the request's App (config, stores; the admin area's also its secrets) on `context.app`. */
export function appContext<A extends App>(load: () => Promise<A>): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext<A>> {
  return {
    before: async function loadApp(request) {
      request.context.app = await load();
    },
  };
}
