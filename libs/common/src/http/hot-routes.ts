import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A hot route says so in its Fastify route config: `config: hotRoute()` (a plain route) or any
 * truthy `hotRoute` in the config (`@RouteConfig({ hotRoute: ... })` on a Nest route). The app's
 * global hooks it does not need then skip it: Nest middleware (pino-http request logging, so no
 * request log line and no request-bound logger), cookie parsing, the empty-body rewrite, and
 * CORS when it says `crossOrigin: false` (the shop's routes answer the listed origins). It keeps
 * the http request metric, its trace (the HTTP instrumentation sits below Fastify), Fastify's
 * request id, and Nest's own few request hooks (the adapter adds them before anything else).
 */
export interface HotRouteConfig {
  hotRoute: unknown;
  /** False: no page of another origin calls it (the gateway's notifications): no CORS. */
  crossOrigin?: boolean;
}

export function hotRoute(options: { crossOrigin?: boolean } = {}): HotRouteConfig {
  return { hotRoute: true, ...options };
}

export function isHotRoute(request: FastifyRequest): boolean {
  return Boolean((request.routeOptions.config as Partial<HotRouteConfig>).hotRoute);
}

/** A hot route that answers no other origin (CORS skipped). */
export function isHotRouteWithoutCors(request: FastifyRequest): boolean {
  const config = request.routeOptions.config as Partial<HotRouteConfig>;
  return Boolean(config.hotRoute) && config.crossOrigin === false;
}

type Hook = (this: unknown, request: FastifyRequest, ...rest: unknown[]) => unknown;

/**
 * The request hook, run for every route but hot ones. Fastify passes its continuation last,
 * whatever the hook's kind (onRequest, onSend with its payload, ...): a hot route goes on at once.
 */
export function exceptOnHotRoutes<H extends Hook>(hook: H): H {
  return function (this: unknown, request: FastifyRequest, ...rest: unknown[]) {
    if (isHotRoute(request)) return (rest[rest.length - 1] as () => void)();
    return hook.call(this, request, ...rest);
  } as H;
}

/** The hooks a route has (the application hooks, onReady and the like, are not wrapped). */
const REQUEST_HOOKS = new Set([
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
]);

/**
 * Runs `register` (a plugin's registration, or Nest's own, which adds @fastify/middie) so that
 * every request hook added to `fastify` meanwhile skips hot routes.
 */
export async function withHooksExceptOnHotRoutes(
  fastify: FastifyInstance,
  register: () => PromiseLike<unknown>,
): Promise<void> {
  const original = fastify.addHook;
  const add = original as unknown as (this: FastifyInstance, name: string, hook: Hook) => unknown;
  fastify.addHook = function (this: FastifyInstance, name: string, hook: Hook) {
    return add.call(this, name, REQUEST_HOOKS.has(name) ? exceptOnHotRoutes(hook) : hook);
  } as unknown as FastifyInstance['addHook'];
  try {
    await register();
  } finally {
    fastify.addHook = original;
  }
}
