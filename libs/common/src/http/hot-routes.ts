import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A hot route (the gateway's notifications, the checkouts, an order's status) passes by the app's
 * global request hooks it does not need: each hook below is skipped unless the route says it needs
 * it. It always keeps the http request metric, its trace (the HTTP instrumentation sits below
 * Fastify), Fastify's request id and Nest's adapter's own few hooks (added before anything else).
 */
export interface HotRouteNeeds {
  /** @fastify/cookie's parsing (request.cookies stays null without it). */
  cookies?: boolean;
  /**
   * The request log line (logging/request-log.ts). A hot route never runs Nest middleware
   * (@fastify/middie, that is pino-http's request-bound logger): a Nest `Logger` line written
   * while it answers names no request unless it says so (`loggedRequest()`).
   */
  requestLog?: boolean;
  /**
   * The api's empty-body rewrite: a Content-Type sent without a body is a request without a body.
   * Without it Fastify's JSON parser refuses such a POST with its own 400.
   */
  emptyJsonBody?: boolean;
  /** CORS: pages of the listed origins may read its answers. */
  crossOrigin?: boolean;
}

export type HotRouteNeed = keyof HotRouteNeeds;

/**
 * The one Fastify route config key of hot routes. A plain Fastify route says `config: hotRoute()`;
 * a Nest controller method says `@HotRoute(needs)` (@app/checkout/http/hot-routes), which also
 * has Fastify call the method in place of Nest's handler.
 */
export interface HotRouteConfig {
  hotRoute: HotRouteNeeds;
}

export function hotRoute(needs: HotRouteNeeds = {}): HotRouteConfig {
  return { hotRoute: needs };
}

/** Where a request keeps its route's hot route config once read (null: not a hot route). */
const NEEDS = Symbol('hot route needs');

type WithNeeds = FastifyRequest & { [NEEDS]?: HotRouteNeeds | null };

function needsOf(request: FastifyRequest): HotRouteNeeds | null {
  let hot = (request as WithNeeds)[NEEDS];
  if (hot === undefined) {
    // Fastify builds routeOptions anew at each read: read once for all the request's hooks.
    const config = request.routeOptions.config as Partial<HotRouteConfig> | undefined;
    hot = (request as WithNeeds)[NEEDS] = config?.hotRoute ?? null;
  }
  return hot;
}

/** True when the request's route is a hot route. */
export const isHotRoute = (request: FastifyRequest): boolean => needsOf(request) !== null;

/**
 * True when the request's route is hot and does not need the hook `need` names; with `need`
 * null, when the route is hot (a hook no hot route runs).
 */
export function hotRouteSkips(request: FastifyRequest, need: HotRouteNeed | null): boolean {
  const hot = needsOf(request);
  return hot !== null && (need === null || hot[need] !== true);
}

type Hook = (this: unknown, request: FastifyRequest, ...rest: unknown[]) => unknown;

/**
 * The request hook, run for every route but the hot ones that do not need it. Fastify passes its
 * continuation last, whatever the hook's kind (onRequest, onSend with its payload, ...): a hot
 * route goes on at once.
 */
export function exceptOnHotRoutes<H extends Hook>(need: HotRouteNeed | null, hook: H): H {
  return function (this: unknown, request: FastifyRequest, ...rest: unknown[]) {
    if (hotRouteSkips(request, need)) return (rest[rest.length - 1] as () => void)();
    return hook.call(this, request, ...rest);
  } as H;
}

/** The hooks a route has (the application hooks, onReady and the like, are not wrapped). */
const REQUEST_HOOKS = [
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'preSerialization',
  'onSend',
  'onResponse',
  'onError',
  'onTimeout',
  'onRequestAbort',
] as const;

export type RequestHookName = (typeof REQUEST_HOOKS)[number];

const isRequestHook = (name: string): name is RequestHookName =>
  (REQUEST_HOOKS as readonly string[]).includes(name);

/**
 * Runs `register` (a plugin's registration, or Nest's own, which adds @fastify/middie) so that
 * every request hook added to `fastify` meanwhile skips the hot routes that do not need `need`
 * (every hot route, with `need` null).
 * `expected` names the request hooks `register` adds, in order: anything else (a plugin's new
 * version adding another hook, or none) stops the start, so a hook cannot silently run on the hot
 * routes again, nor one of someone else's be skipped. Returns the hooks it wrapped.
 */
export async function withHooksExceptOnHotRoutes(
  fastify: FastifyInstance,
  need: HotRouteNeed | null,
  expected: readonly RequestHookName[],
  register: () => PromiseLike<unknown>,
): Promise<RequestHookName[]> {
  const wrapped: RequestHookName[] = [];
  const original = fastify.addHook;
  const add = original as unknown as (this: FastifyInstance, name: string, hook: Hook) => unknown;
  fastify.addHook = function (this: FastifyInstance, name: string, hook: Hook) {
    if (!isRequestHook(name)) return add.call(this, name, hook);
    wrapped.push(name);
    return add.call(this, name, exceptOnHotRoutes(need, hook));
  } as unknown as FastifyInstance['addHook'];
  try {
    await register();
  } finally {
    fastify.addHook = original;
  }
  if (wrapped.join() !== expected.join()) {
    throw new Error(
      `hot routes: expected to make ${expected.join(', ') || 'no hook'} skip the hot routes ` +
        `that do not need ${need ?? 'it'}, but the registration added ${wrapped.join(', ') || 'none'}`,
    );
  }
  return wrapped;
}
