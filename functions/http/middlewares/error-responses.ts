import type { MiddlewareObj } from '@middy/core';
import { HttpError } from '../../domain/http-error';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { json } from '../responses';
import { logger } from '../logger';

/**
 * The single error step: an HttpError becomes `{ "error": message, ...extra }`
 * with its status; anything else is logged and answered with a bare 500, so
 * internals never leak. A dependency that is down therefore denies, never admits.
 */
export function errorResponses(): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    onError: function renderError(request) {
      const { error } = request;
      if (error instanceof HttpError) {
        request.response = json(error.status, { error: error.message, ...error.options.extra }, error.options.headers);
        return;
      }
      logger.error('unhandled error', { error: error as Error, routeKey: request.event.routeKey });
      request.response = json(500, { error: 'Internal server error' });
    },
  };
}
