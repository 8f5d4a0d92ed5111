import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { errorAnswer } from '../error-table';
import { json } from '../responses';
import { logger } from '../../adapters/telemetry';

/**
 * The single error step: a domain error or an HttpError becomes its answer
 * from the error table (`{ "error": ..., reason? }`, status, headers); anything
 * else is logged and answered with a bare 500, so internals never leak. A
 * dependency that is down therefore denies, never admits.
 */
export function errorResponses(): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    onError: function renderError(request) {
      const { error } = request;
      const answer = errorAnswer(error);
      if (answer) {
        request.response = json(answer.status, answer.body, answer.headers);
        return;
      }
      logger.error('unhandled error', { error: error as Error, routeKey: request.event.routeKey });
      request.response = json(500, { error: 'Internal server error' });
    },
  };
}
