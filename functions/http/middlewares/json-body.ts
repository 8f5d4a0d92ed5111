import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { HttpError } from '../http-error';

/**
 * Parses a JSON request body into `context.jsonBody`; malformed JSON is a 400, never a 500, and a body
 * over the route's limit (`limitOf`, by route key) a 413 before it is parsed (API Gateway itself lets 10 MB through).
 */
export function jsonBody(limitOf: (routeKey: string) => number): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    before: function parseJsonBody(request) {
      const { body, isBase64Encoded } = request.event;
      request.context.jsonBody = undefined;
      if (body === undefined || body === null || body.trim() === '') return;
      const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      if (Buffer.byteLength(text) > limitOf(request.event.routeKey)) throw new HttpError(413, 'Request body too large');
      try {
        request.context.jsonBody = JSON.parse(text);
      } catch {
        throw new HttpError(400, 'Request body must be valid JSON');
      }
    },
  };
}
