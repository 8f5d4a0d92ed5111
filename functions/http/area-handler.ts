import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiContext, ApiEvent, ApiResult, RouteHandler } from './api-types';
import { NotFound, type RecordKind } from '../domain/errors';
import { LIST_LIMITS } from '../domain/config';
import { HttpError } from './http-error';
import { appContext } from './middlewares/app-context';
import { errorResponses } from './middlewares/error-responses';
import { jsonBody } from './middlewares/json-body';
import { sameOriginMutations } from './middlewares/same-origin-mutations';
import { routeGuard } from './middlewares/route-guard';
import { routeKey, routeTable, type Area } from './route-table';
import type { AdminApp, App, AppSource } from './app';
import { recordId } from '../domain/inputs';
import { checkoutSessionId } from '../domain/commerce';
import { normalizeUsername } from '../domain/staff';

export type LambdaHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** The admin session secret and the staff accounts, which only the admin area's App holds. */
const adminOf = (app: App) =>
  'adminSecrets' in app ? { sessionSecret: (app as AdminApp).adminSecrets.adminSessionSecret, accounts: (app as AdminApp).stores.accounts } : null;

/**
 * The Lambda handler of one area: middlewares, then dispatch on API
 * Gateway's `routeKey` to the area's route handlers, with the App that
 * `load` gives each request. Throws at load time if the table and the
 * handlers disagree, so a missing route never ships.
 */
export function areaHandler<A extends App>(area: Area, handlers: Record<string, RouteHandler<A>>, load: AppSource<A>): LambdaHandler {
  const specs = new Map(routeTable.filter((spec) => spec.area === area).map((spec) => [routeKey(spec), spec]));
  for (const key of specs.keys()) if (!handlers[key]) throw new Error(`no handler for ${key}`);
  for (const key of Object.keys(handlers)) if (!specs.has(key)) throw new Error(`${key} is not in the route table for ${area}`);
  for (const spec of specs.values()) {
    for (const [, name] of spec.path.matchAll(/\{(\w+)\}/g)) if (!PATH_PARAMS[name!]) throw new Error(`no rule for the path parameter ${name} of ${routeKey(spec)}`);
  }
  // Only the admin area loads the admin secrets (its function alone may read them in AWS).
  if (area !== 'admin' && [...specs.values()].some((spec) => spec.guard === 'admin')) {
    throw new Error(`${area} has admin routes but does not load the admin secrets`);
  }

  const handler = middy<ApiEvent, ApiResult, Error, ApiContext<A>>().use(errorResponses()).use(appContext(load));
  if (area === 'admin') handler.use(sameOriginMutations());
  handler
    .use(jsonBody((key) => specs.get(key)?.bodyBytes ?? LIST_LIMITS.bodyBytes))
    .use(routeGuard((key) => specs.get(key), adminOf))
    .handler(async function dispatch(event, context) {
      const handle = handlers[event.routeKey];
      if (!handle) throw new HttpError(404, 'Not found');
      const params = (event.pathParameters ?? {}) as Record<string, string>;
      // No record has such an id: answer as for an unknown one, before the table sees a key it would refuse.
      for (const [name, value] of Object.entries(params)) {
        const rule = PATH_PARAMS[name];
        if (!rule?.valid(value)) throw new NotFound(rule?.kind(event.routeKey) ?? 'event');
      }
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

/** Each path parameter of the route table, with the rule of what it names and the record a bad one is not found as. */
const PATH_PARAMS: Record<string, { valid(value: string): boolean; kind(routeKey: string): RecordKind }> = {
  id: { valid: (value) => recordId.safeParse(value).success, kind: (key) => (key.includes('/tokens/{id}') ? 'code' : 'event') },
  eventId: { valid: (value) => recordId.safeParse(value).success, kind: () => 'event' },
  jobId: { valid: (value) => recordId.safeParse(value).success, kind: () => 'job' },
  orderId: { valid: (value) => recordId.safeParse(value).success, kind: () => 'order' },
  username: { valid: (value) => normalizeUsername(value) !== null, kind: () => 'account' },
  sessionId: { valid: (value) => checkoutSessionId.safeParse(value).success, kind: () => 'checkout' },
};
