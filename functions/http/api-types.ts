import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { AccountRecord } from '../domain/staff';
import type { AdminSession } from '../domain/staff';
import type { App } from './app';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** The Lambda context plus what the middlewares add. */
export interface ApiContext<A extends App = App> extends Context {
  app: A;
  jsonBody: unknown;
  admin?: AdminSession;
  account?: AccountRecord;
}

/** `A`: the area's App (the admin area's carries the admin secrets). */
export interface ApiRequest<A extends App = App> {
  event: ApiEvent;
  app: A;
  /** Parsed JSON body (undefined when the request has none). */
  body: unknown;
  params: Record<string, string>;
  query: Record<string, string>;
  /** Set by the admin guard: the session and its account as stored now. */
  admin?: AdminSession;
  account?: AccountRecord;
}

export type RouteHandler<A extends App = App> = (request: ApiRequest<A>) => Promise<ApiResult>;
