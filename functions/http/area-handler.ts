import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiContext, ApiEvent, ApiResult, RouteHandler } from './api-types';
import { NotFound } from '../domain/errors';
import { HttpError } from './http-error';
import { appContext } from './middlewares/app-context';
import { errorResponses } from './middlewares/error-responses';
import { jsonBody } from './middlewares/json-body';
import { sameOriginMutations } from './middlewares/same-origin-mutations';
import { routeGuard } from './middlewares/route-guard';
import { routeKey, routeTable, type Area } from './route-table';
import { getAdminApp, getApp, type AdminApp, type App } from './app';
import { recordId } from '../domain/inputs';

export type LambdaHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** How an area builds its App, and where its admin session secret is (the admin area alone has one). */
interface AreaApp<A extends App> {
  load: () => Promise<A>;
  sessionSecret: ((app: A) => string) | null;
}

/**
 * The Lambda handler of one area: middlewares, then dispatch on API
 * Gateway's `routeKey` to the area's route handlers. Throws at load time if
 * the table and the handlers disagree, so a missing route never ships.
 */
export function areaHandler(area: 'admin', handlers: Record<string, RouteHandler<AdminApp>>): LambdaHandler;
export function areaHandler(area: Exclude<Area, 'admin'>, handlers: Record<string, RouteHandler>): LambdaHandler;
export function areaHandler(area: Area, handlers: Record<string, RouteHandler<AdminApp>> | Record<string, RouteHandler>): LambdaHandler {
  // Only the admin area loads the admin secrets (its function alone may read them in AWS).
  return area === 'admin'
    ? buildAreaHandler<AdminApp>(area, handlers, { load: getAdminApp, sessionSecret: (app) => app.adminSecrets.adminSessionSecret })
    : buildAreaHandler<App>(area, handlers as Record<string, RouteHandler>, { load: getApp, sessionSecret: null });
}

function buildAreaHandler<A extends App>(area: Area, handlers: Record<string, RouteHandler<A>>, areaApp: AreaApp<A>): LambdaHandler {
  const specs = new Map(routeTable.filter((spec) => spec.area === area).map((spec) => [routeKey(spec), spec]));
  for (const key of specs.keys()) if (!handlers[key]) throw new Error(`no handler for ${key}`);
  for (const key of Object.keys(handlers)) if (!specs.has(key)) throw new Error(`${key} is not in the route table for ${area}`);
  if (!areaApp.sessionSecret && [...specs.values()].some((spec) => spec.guard === 'admin')) {
    throw new Error(`${area} has admin routes but does not load the admin secrets`);
  }

  const handler = middy<ApiEvent, ApiResult, Error, ApiContext<A>>().use(errorResponses()).use(appContext(areaApp.load));
  if (area === 'admin') handler.use(sameOriginMutations());
  handler
    .use(jsonBody())
    .use(routeGuard((key) => specs.get(key), areaApp.sessionSecret))
    .handler(async function dispatch(event, context) {
      const handle = handlers[event.routeKey];
      if (!handle) throw new HttpError(404, 'Not found');
      const params = (event.pathParameters ?? {}) as Record<string, string>;
      // No record has such an id: answer as for an unknown one, before the table sees a key it would refuse.
      if (Object.values(params).some((value) => !recordId.safeParse(value).success)) throw notFound(event.routeKey);
      return handle({
        event,
        app: context.app,
        body: context.jsonBody,
        params,
        query: (event.queryStringParameters ?? {}) as Record<string, string>,
        admin: context.admin,
        account: context.account,
      });
    });
  // Lambda passes a plain Context; the middlewares add ApiContext's fields before dispatch runs.
  return handler as unknown as LambdaHandler;
}

function notFound(key: string): NotFound {
  return new NotFound(key.includes('/tokens/{id}') ? 'code' : 'event');
}
