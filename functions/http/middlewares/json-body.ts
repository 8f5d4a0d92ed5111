import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { HttpError } from '../http-error';

/** Parses a JSON request body into `context.jsonBody`; malformed JSON is a 400, never a 500. */
export function jsonBody(): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    before: function parseJsonBody(request) {
      const { body, isBase64Encoded } = request.event;
      request.context.jsonBody = undefined;
      if (body === undefined || body === null || body.trim() === '') return;
      const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      try {
        request.context.jsonBody = JSON.parse(text);
      } catch {
        throw new HttpError(400, 'Request body must be valid JSON');
      }
    },
  };
}
