import {
  ArgumentMetadata,
  CanActivate,
  ExceptionFilter,
  ForbiddenException,
  PipeTransform,
  RequestMethod,
  Type,
} from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  EXCEPTION_FILTERS_METADATA,
  FILTER_CATCH_EXCEPTIONS,
  GUARDS_METADATA,
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PIPES_METADATA,
  REDIRECT_METADATA,
  RENDER_METADATA,
  RESPONSE_PASSTHROUGH_METADATA,
  ROUTE_ARGS_METADATA,
  SSE_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ApplicationConfig, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { isObservable, lastValueFrom } from 'rxjs';
import type { HotRouteConfig, HotRouteNeeds } from '@app/common';

/** The controller method Fastify calls in place of Nest's handler. */
interface HotTarget {
  controller: Type<object>;
  method: string;
}

/** A Nest route's hot route config: the global hooks it needs, and the method that answers it. */
interface NestHotRoute extends HotRouteNeeds {
  answeredBy: HotTarget;
}

/** The method's @HotRoute config, kept apart from its Fastify route config. */
const HOT_ROUTE_METADATA = 'checkout:hotRoute';

function mergeRouteConfig(handler: object, hot: NestHotRoute): void {
  const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as
    Record<string, unknown> | undefined;
  if (config?.hotRoute === hot) return;
  const merged = { ...config, hotRoute: hot } satisfies HotRouteConfig;
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, merged, handler);
}

/**
 * Makes a controller method a hot route (a checkout, an order's status): it passes by the global
 * hooks it does not say it needs (@app/common's hotRoute config, one key for plain and Nest
 * routes), and Fastify calls the method directly, with the same guards, pipes and exception
 * filter as Nest's pipeline, without the pipeline around them (serveHotRoutes). The method and its
 * decorators stay the route's one implementation and its documentation. Its config sits beside
 * any @RouteConfig's, above or under it.
 */
export const HotRoute =
  (needs: HotRouteNeeds = {}): MethodDecorator =>
  (target, key, descriptor) => {
    const hot: NestHotRoute = {
      ...needs,
      answeredBy: { controller: target.constructor as Type<object>, method: String(key) },
    };
    Reflect.defineMetadata(HOT_ROUTE_METADATA, hot, descriptor.value as object);
    // Beside what a @RouteConfig under it set; serveHotRoutes adds it again to what one above set.
    mergeRouteConfig(descriptor.value as object, hot);
    return descriptor;
  };

/** Where each argument of the method comes from, and how the pipe is told what it is. */
interface Argument {
  extract: (request: FastifyRequest, reply: FastifyReply, context: ExecutionContextHost) => unknown;
  /** Null for arguments Nest passes unpiped (headers, the reply). */
  piped: ArgumentMetadata | null;
}

/** What Nest's pipeline would do for the method, decided once at start. */
interface HotPlan {
  target: HotTarget;
  instance: object;
  handler: (...args: unknown[]) => unknown;
  guards: CanActivate[];
  args: Argument[];
  status: number;
}

/** Nest's global enhancers, as a hot route serves them. */
interface Globals {
  guards: CanActivate[];
  pipes: PipeTransform[];
  filter: ExceptionFilter;
}

/**
 * Serves the methods marked @HotRoute() through a Fastify handler of their own: Nest's global
 * guards (rate limits) and the route's guards, Nest's global pipes on each argument, the method,
 * and its answer sent as Nest would send it; a failure goes to Nest's global exception filter.
 * The globals are Nest's own (useGlobal* and APP_* providers) as they are when the routes are
 * registered, as for Nest's pipeline: one the hot handler cannot serve (an interceptor, a
 * request-scoped enhancer, a filter that does not catch everything) stops the start. Call before
 * the app is initialised (the hook sees the routes as Nest registers them). A plain Fastify
 * route's hotRoute config names no method: its handler stays.
 */
export function serveHotRoutes(app: NestFastifyApplication): void {
  const config = applicationConfigOf(app);
  const marked = hotMethodsOf(app);
  const served = new Set<string>();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const hot = (route.config as Partial<{ hotRoute: Partial<NestHotRoute> }> | undefined)
      ?.hotRoute;
    if (hot?.answeredBy) {
      const globals = globalsOf(config);
      route.handler = hotHandler(planOf(app, hot.answeredBy, globals.guards), globals);
      served.add(nameOf(hot.answeredBy));
    }
  });
  // Routes Nest registered before this was called keep Nest's handler: the start stops instead.
  fastify.addHook('onReady', async () => {
    const unserved = marked.filter((name) => !served.has(name));
    if (unserved.length > 0) {
      throw new Error(
        `hot routes: ${unserved.join(', ')} not served (serveHotRoutes after app.init()?)`,
      );
    }
  });
}

const nameOf = ({ controller, method }: HotTarget): string => `${controller.name}.${method}`;

/**
 * The app's controller methods marked @HotRoute(), each with its hot route config in its route
 * config, whichever order it has with a @RouteConfig.
 */
function hotMethodsOf(app: NestFastifyApplication): string[] {
  const names = new Set<string>();
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      const prototype = (metatype as Type<object> | null)?.prototype as
        Record<string, object> | undefined;
      if (!prototype) continue;
      for (const method of scanner.getAllMethodNames(prototype)) {
        const hot = Reflect.getMetadata(HOT_ROUTE_METADATA, prototype[method]) as
          NestHotRoute | undefined;
        if (!hot) continue;
        mergeRouteConfig(prototype[method], hot);
        names.add(nameOf(hot.answeredBy));
      }
    }
  }
  return [...names];
}

function applicationConfigOf(app: NestFastifyApplication): ApplicationConfig {
  // Nest keeps its global enhancers in the application's config, which it exposes to no one.
  const config = (app as unknown as { config?: unknown }).config;
  if (!(config instanceof ApplicationConfig)) {
    throw new Error('hot routes: cannot read Nest’s global enhancers (ApplicationConfig)');
  }
  return config;
}

/** Nest's global guards, pipes and filter, or the start stops when there is what is not served. */
function globalsOf(config: ApplicationConfig): Globals {
  const unserved = [
    ['interceptors', config.getGlobalInterceptors()],
    ['request-scoped guards', config.getGlobalRequestGuards()],
    ['request-scoped pipes', config.getGlobalRequestPipes()],
    ['request-scoped filters', config.getGlobalRequestFilters()],
    ['request-scoped interceptors', config.getGlobalRequestInterceptors()],
  ] as const;
  for (const [kind, enhancers] of unserved) {
    if (enhancers.length > 0)
      throw new Error(`hot routes: a hot route does not serve global ${kind}`);
  }
  const filters = config.getGlobalFilters();
  const [filter] = filters;
  const catches = (filter?.constructor &&
    Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, filter.constructor)) as unknown[] | undefined;
  if (filters.length !== 1 || (catches !== undefined && catches.length > 0)) {
    throw new Error(
      `hot routes: a hot route answers failures through one global exception filter that ` +
        `catches everything (there are ${filters.length})`,
    );
  }
  return { guards: [...config.getGlobalGuards()], pipes: [...config.getGlobalPipes()], filter };
}

function hotHandler(
  plan: HotPlan,
  globals: Globals,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | void> {
  return async (request, reply) => {
    // As Nest's Fastify adapter does: an empty path parameter matches no route.
    const params = request.params as Record<string, string>;
    for (const name in params) {
      if (params[name] === '') {
        reply.callNotFound();
        return reply;
      }
    }
    const context = new ExecutionContextHost(
      [request, reply, undefined],
      plan.target.controller,
      plan.handler,
    );
    try {
      for (const guard of plan.guards) {
        const allowed = guard.canActivate(context);
        if (!(await (isObservable(allowed) ? lastValueFrom(allowed) : allowed))) {
          throw new ForbiddenException('Forbidden resource');
        }
      }
      void reply.status(plan.status);
      // Set in place, never resolved to: the reply is a thenable that settles once it is sent.
      const args: unknown[] = new Array(plan.args.length);
      // As Nest does, the piped arguments side by side; the others (headers, the reply) as they are.
      let piping: Promise<void>[] | null = null;
      for (let index = 0; index < plan.args.length; index += 1) {
        const { extract, piped } = plan.args[index];
        let value: unknown;
        try {
          value = extract(request, reply, context);
        } catch (error) {
          // Rejected beside the pipes under way, as Nest's own Promise.all would: none goes unheard.
          (piping ??= []).push(Promise.reject(error));
          continue;
        }
        if (piped && globals.pipes.length > 0) {
          (piping ??= []).push(
            throughPipes(globals.pipes, value, piped).then((result) => {
              args[index] = result;
            }),
          );
        } else args[index] = value;
      }
      if (piping) await Promise.all(piping);
      const result: unknown = await plan.handler.apply(plan.instance, args);
      return reply.send(result);
    } catch (error) {
      globals.filter.catch(error, context);
      return reply;
    }
  };
}

/** As Nest does: each global pipe in turn, on what the one before returned. */
async function throughPipes(
  pipes: PipeTransform[],
  value: unknown,
  metadata: ArgumentMetadata,
): Promise<unknown> {
  for (const pipe of pipes) value = await pipe.transform(value, metadata);
  return value;
}

/** Only what these routes use is served; anything else of Nest's on the method stops the start. */
const UNSERVED = [
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  EXCEPTION_FILTERS_METADATA,
  HEADERS_METADATA,
  REDIRECT_METADATA,
  RENDER_METADATA,
  SSE_METADATA,
];

function planOf(
  app: NestFastifyApplication,
  target: HotTarget,
  globalGuards: CanActivate[],
): HotPlan {
  const { controller, method } = target;
  const instance = app.get(controller, { strict: false });
  const handler = (controller.prototype as Record<string, (...args: unknown[]) => unknown>)[method];
  const name = nameOf(target);
  for (const key of UNSERVED) {
    const on = [Reflect.getMetadata(key, controller), Reflect.getMetadata(key, handler)];
    if (on.some((value) => value !== undefined && !(Array.isArray(value) && value.length === 0))) {
      throw new Error(`${name}: a hot route does not serve ${key}`);
    }
  }
  const guardTypes = [
    ...((Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as Type<CanActivate>[]),
    ...((Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as Type<CanActivate>[]),
  ];
  const verb = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
  const status =
    (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
    (verb === RequestMethod.POST ? 201 : 200);
  return {
    target,
    instance,
    handler,
    guards: [...globalGuards, ...guardTypes.map((type) => app.get(type, { strict: false }))],
    args: argumentsOf(controller, method, name),
    status,
  };
}

interface ArgumentSource {
  index: number;
  data?: string;
  pipes?: unknown[];
  factory?: (data: unknown, context: ExecutionContextHost) => unknown;
}

function argumentsOf(controller: Type<object>, method: string, name: string): Argument[] {
  const sources = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    ArgumentSource
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, method) ??
    []) as Type<unknown>[];
  const args: Argument[] = [];
  for (const [key, { index, data, pipes, factory }] of Object.entries(sources)) {
    if (pipes && pipes.length > 0) throw new Error(`${name}: a hot route does not serve pipes`);
    const metatype = types[index];
    if (key.includes(CUSTOM_ROUTE_ARGS_METADATA) && factory) {
      args[index] = {
        extract: (_request, _reply, context) => factory(data, context),
        piped: { type: 'custom', metatype, data },
      };
      continue;
    }
    switch (Number(key.split(':')[0]) as RouteParamtypes) {
      case RouteParamtypes.BODY:
        args[index] = {
          extract: (request) =>
            data ? (request.body as Record<string, unknown> | undefined)?.[data] : request.body,
          piped: { type: 'body', metatype, data },
        };
        break;
      case RouteParamtypes.PARAM:
        args[index] = {
          extract: (request) => {
            const params = request.params as Record<string, string>;
            return data ? params[data] : params;
          },
          piped: { type: 'param', metatype, data },
        };
        break;
      case RouteParamtypes.HEADERS:
        args[index] = {
          extract: (request) => (data ? request.headers[data.toLowerCase()] : request.headers),
          piped: null,
        };
        break;
      case RouteParamtypes.RESPONSE:
        // Nest sends what the method returns only when it passes the reply through.
        if (Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, controller, method) !== true) {
          throw new Error(`${name}: a hot route answers what it returns (@Res({ passthrough }))`);
        }
        args[index] = { extract: (_request, reply) => reply, piped: null };
        break;
      default:
        throw new Error(`${name}: a hot route does not serve the argument ${key}`);
    }
  }
  if (args.length !== types.length || Array.from(args).some((arg) => arg === undefined)) {
    throw new Error(`${name}: every argument of a hot route needs a decorator`);
  }
  return args;
}
