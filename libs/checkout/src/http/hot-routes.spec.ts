import {
  ArgumentMetadata,
  ArgumentsHost,
  Body,
  CallHandler,
  CanActivate,
  Catch,
  Controller,
  ExecutionContext,
  Get,
  ExceptionFilter,
  Headers,
  HttpCode,
  HttpException,
  Injectable,
  Module,
  NestInterceptor,
  NotFoundException,
  Param,
  PipeTransform,
  Post,
  Provider,
  Res,
  Scope,
  Type,
  UseGuards,
  UseInterceptors,
  createParamDecorator,
} from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { IsInt, IsString, Max } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { hotRoute } from '@app/common';
import { CheckoutError } from '../errors/checkout-error';
import { CheckoutExceptionFilter } from './checkout-exception.filter';
import { HotRoute, serveHotRoutes } from './hot-routes';
import { checkoutValidationPipe } from './validation';

class ItemDto {
  @IsString()
  name!: string;

  @IsInt()
  @Max(100)
  count!: number;
}

interface CallerRequest {
  headers: Record<string, string | undefined>;
  caller?: string;
}

/** Lets a request through by its x-allow header: yes, no (false) or refused (an error). */
@Injectable()
class HeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<CallerRequest>();
    const allow = request.headers['x-allow'];
    if (allow === 'refused') throw CheckoutError.unauthenticated();
    request.caller = `caller-of-${context.getClass().name}.${context.getHandler().name}`;
    return allow === 'yes';
  }
}

/** Stands for the rate guard: global, before the route's own, and it sets a header. */
class CountingGuard implements CanActivate {
  seen = 0;
  canActivate(context: ExecutionContext): boolean {
    this.seen += 1;
    void context.switchToHttp().getResponse<FastifyReply>().header('x-limit', '10');
    return true;
  }
}

const Caller = createParamDecorator(
  (_data: unknown, context: ExecutionContext) =>
    context.switchToHttp().getRequest<CallerRequest>().caller,
);

const noDecorator: MethodDecorator = () => undefined;

/** The same routes twice: under /nest through Nest's pipeline, under /fast as hot routes. */
function itemsController(prefix: 'nest' | 'fast'): Type<unknown> {
  const hot = prefix === 'fast' ? HotRoute() : noDecorator;

  @UseGuards(HeaderGuard)
  @Controller(prefix)
  class ItemsController {
    @Post('items')
    @hot
    create(
      @Body() dto: ItemDto,
      @Caller() caller: string,
      @Headers('X-Key') key: string | undefined,
      @Res({ passthrough: true }) reply: FastifyReply,
    ): unknown {
      if (dto.count === 42) void reply.status(200).header('x-replayed', 'true');
      return { name: dto.name, count: dto.count, instance: dto instanceof ItemDto, caller, key };
    }

    @Post('items/:id/touch')
    @HttpCode(202)
    @hot
    touch(@Param('id') id: string): Promise<unknown> {
      return Promise.resolve({ touched: id });
    }

    @Get('items/:id')
    @hot
    async find(@Param('id') id: string): Promise<unknown> {
      await Promise.resolve();
      if (id === 'missing') throw new NotFoundException('no such item');
      if (id === 'taken') throw CheckoutError.notFound('order', id);
      if (id === 'broken') throw new Error('a bug');
      return { id };
    }
  }
  return ItemsController;
}

/** What a variant of the app adds: providers (APP_GUARD...), and globals after serveHotRoutes. */
interface Setup {
  providers?: Provider[];
  /** In place of the checkout filter. */
  filter?: ExceptionFilter;
  late?: (app: NestFastifyApplication) => void;
  /** serveHotRoutes after app.init(), when Nest has registered the routes. */
  servedAfterInit?: boolean;
}

async function startApp(
  controllers: Type<unknown>[],
  setup: Setup = {},
): Promise<{ app: NestFastifyApplication; global: CountingGuard }> {
  @Module({ controllers, providers: [HeaderGuard, ...(setup.providers ?? [])] })
  class ItemsModule {}
  const moduleRef = await Test.createTestingModule({ imports: [ItemsModule] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
    logger: false,
  });
  const global = new CountingGuard();
  const filter = setup.filter ?? new CheckoutExceptionFilter();
  const pipe = checkoutValidationPipe();
  app.useGlobalGuards(global);
  app.useGlobalFilters(filter);
  app.useGlobalPipes(pipe);
  if (!setup.servedAfterInit) serveHotRoutes(app);
  setup.late?.(app);
  // A plain Fastify hot route: its config names no method to call.
  app
    .getHttpAdapter()
    .getInstance()
    .get('/plain', { config: hotRoute() }, () => Promise.resolve({ plain: true }));
  await app.init();
  if (setup.servedAfterInit) serveHotRoutes(app);
  await app.getHttpAdapter().getInstance().ready();
  return { app, global };
}

describe('hot controller methods answer as Nest’s pipeline does', () => {
  let app: NestFastifyApplication;
  let global: CountingGuard;

  beforeAll(async () => {
    ({ app, global } = await startApp([itemsController('nest'), itemsController('fast')]));
  });
  afterAll(() => app.close());

  const send = (
    prefix: string,
    request: { method: 'GET' | 'POST'; url: string; body?: unknown; headers?: object },
  ) =>
    app.inject({
      method: request.method,
      url: `/${prefix}${request.url}`,
      headers: { 'x-allow': 'yes', ...request.headers } as Record<string, string>,
      ...(request.body === undefined ? {} : { payload: request.body as object }),
    });

  const requests: [string, Parameters<typeof send>[1]][] = [
    ['a valid body', { method: 'POST', url: '/items', body: { name: 'tea', count: 3 } }],
    [
      'a header argument and a status set by the method',
      {
        method: 'POST',
        url: '/items',
        body: { name: 'tea', count: 42 },
        headers: { 'x-key': 'k' },
      },
    ],
    ['every failing field', { method: 'POST', url: '/items', body: { name: 7, count: 101 } }],
    ['an unknown field', { method: 'POST', url: '/items', body: { name: 'tea', count: 1, x: 1 } }],
    ['a NUL character', { method: 'POST', url: '/items', body: { name: 'a\u0000', count: 1 } }],
    ['no body', { method: 'POST', url: '/items' }],
    ['a guard saying no', { method: 'POST', url: '/items', headers: { 'x-allow': 'no' } }],
    ['a guard refusing', { method: 'POST', url: '/items', headers: { 'x-allow': 'refused' } }],
    ['@HttpCode', { method: 'POST', url: '/items/7/touch' }],
    ['a path parameter', { method: 'GET', url: '/items/abc' }],
    ['a NUL in a path parameter', { method: 'GET', url: '/items/a%00b' }],
    ['an empty path parameter', { method: 'GET', url: '/items/' }],
    ["Nest's HTTP exception", { method: 'GET', url: '/items/missing' }],
    ['our error', { method: 'GET', url: '/items/taken' }],
    ['an unexpected error', { method: 'GET', url: '/items/broken' }],
  ];

  it.each(requests)('%s: the same status, body and headers', async (_name, request) => {
    const [nest, fast] = [await send('nest', request), await send('fast', request)];
    const headers = (answer: typeof nest) => {
      const { date: _date, ...rest } = answer.headers;
      return rest;
    };
    expect(fast.statusCode).toBe(nest.statusCode);
    // A 404 names the path it was asked for.
    expect(fast.body.replace('/fast/', '/nest/')).toBe(nest.body);
    expect(headers(fast)).toEqual(headers(nest));
  });

  it('runs the global guards, then the route’s, and hands the method the validated DTO', async () => {
    const before = global.seen;
    const answer = await send('fast', {
      method: 'POST',
      url: '/items',
      body: { name: 'tea', count: 3 },
      headers: { 'x-key': 'k1' },
    });
    expect(global.seen).toBe(before + 1);
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['x-limit']).toBe('10');
    expect(answer.json()).toEqual({
      name: 'tea',
      count: 3,
      instance: true,
      caller: 'caller-of-ItemsController.create',
      key: 'k1',
    });
  });

  it('leaves a plain Fastify route to its own handler', async () => {
    expect((await app.inject({ method: 'GET', url: '/plain' })).json()).toEqual({ plain: true });
  });

  it('refuses to start when a hot route has what it does not serve (an interceptor)', async () => {
    @Controller('intercepted')
    class InterceptedController {
      @Get()
      @HotRoute()
      @UseInterceptors({ intercept: (_context, next) => next.handle() })
      find(): unknown {
        return {};
      }
    }
    await expect(startApp([InterceptedController])).rejects.toThrow(
      'InterceptedController.find: a hot route does not serve __interceptors__',
    );
  });
});

/** An APP_GUARD provider: marks the answers it let through. */
@Injectable()
class ProvidedGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    void context.switchToHttp().getResponse<FastifyReply>().header('x-provided-guard', 'ran');
    return true;
  }
}

/** A global guard added after serveHotRoutes: refuses a request marked x-late: no. */
class LateGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<CallerRequest>().headers['x-late'] !== 'no';
  }
}

/** A second global pipe, after the validation pipe: marks the DTO's name. */
class MarkingPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'body') (value as ItemDto).name += ' (marked)';
    return value;
  }
}

class PassingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): ReturnType<CallHandler['handle']> {
    return next.handle();
  }
}

@Catch(HttpException)
class HttpOnlyFilter implements ExceptionFilter {
  catch(_error: unknown, _host: ArgumentsHost): void {}
}

describe('hot controller methods run Nest’s global enhancers, however they were added', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    ({ app } = await startApp([itemsController('nest'), itemsController('fast')], {
      providers: [{ provide: APP_GUARD, useClass: ProvidedGuard }],
      late: (started) => {
        started.useGlobalGuards(new LateGuard());
        started.useGlobalPipes(new MarkingPipe());
      },
    }));
  });
  afterAll(() => app.close());

  const send = (prefix: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: `/${prefix}/items`,
      headers: { 'x-allow': 'yes', ...headers },
      payload: { name: 'tea', count: 3 },
    });

  it('runs an APP_GUARD provider, and a global guard and pipe added after serveHotRoutes', async () => {
    const [nest, fast] = [await send('nest'), await send('fast')];
    expect(fast.statusCode).toBe(201);
    expect(fast.headers['x-provided-guard']).toBe('ran');
    expect(fast.json()).toMatchObject({ name: 'tea (marked)', count: 3 });
    expect(fast.body).toBe(nest.body);
    expect(nest.headers['x-provided-guard']).toBe('ran');
  });

  it('refuses what the late global guard refuses, as Nest does', async () => {
    const [nest, fast] = [
      await send('nest', { 'x-late': 'no' }),
      await send('fast', { 'x-late': 'no' }),
    ];
    expect(fast.statusCode).toBe(403);
    expect(fast.body).toBe(nest.body);
  });
});

describe('a global enhancer a hot route cannot serve stops the start', () => {
  @Controller('items')
  class ItemsController {
    @Get()
    @HotRoute()
    find(): unknown {
      return {};
    }
  }

  it.each<[string, Setup, string]>([
    [
      'a global interceptor',
      { late: (app) => app.useGlobalInterceptors(new PassingInterceptor()) },
      'hot routes: a hot route does not serve global interceptors',
    ],
    [
      'an APP_INTERCEPTOR provider',
      { providers: [{ provide: APP_INTERCEPTOR, useClass: PassingInterceptor }] },
      'hot routes: a hot route does not serve global interceptors',
    ],
    [
      'a request-scoped APP_GUARD provider',
      { providers: [{ provide: APP_GUARD, useClass: ProvidedGuard, scope: Scope.REQUEST }] },
      'hot routes: a hot route does not serve global request-scoped guards',
    ],
    [
      'a second global filter',
      { late: (app) => app.useGlobalFilters(new CheckoutExceptionFilter()) },
      'catches everything (there are 2)',
    ],
  ])('%s', async (_name, setup, message) => {
    await expect(startApp([ItemsController], setup)).rejects.toThrow(message);
  });

  it('a global filter that catches only some errors', async () => {
    await expect(startApp([ItemsController], { filter: new HttpOnlyFilter() })).rejects.toThrow(
      'one global exception filter that catches everything (there are 1)',
    );
  });
});

describe('@HotRoute beside @RouteConfig', () => {
  @Controller('configured')
  class ConfiguredController {
    @Get('under')
    @HotRoute({ requestLog: true })
    @RouteConfig({ label: 'under' })
    under(): unknown {
      return { route: 'under' };
    }

    @Get('above')
    @RouteConfig({ label: 'above' })
    @HotRoute({ requestLog: true })
    above(): unknown {
      return { route: 'above' };
    }
  }

  it.each(['under', 'above'])(
    'keeps both configs when the @RouteConfig is %s it, and serves the method',
    async (label) => {
      const configs: unknown[] = [];
      const { app } = await startApp([ConfiguredController], {
        late: (started) =>
          started
            .getHttpAdapter()
            .getInstance()
            .addHook('onRequest', async (request) => {
              configs.push(request.routeOptions.config);
            }),
      });
      const answer = await app.inject({ method: 'GET', url: `/configured/${label}` });
      await app.close();
      expect(answer.json()).toEqual({ route: label });
      expect(configs).toEqual([
        expect.objectContaining({
          label,
          hotRoute: {
            requestLog: true,
            answeredBy: { controller: ConfiguredController, method: label },
          },
        }),
      ]);
    },
  );
});

describe('serveHotRoutes called too late', () => {
  it('stops the start when a @HotRoute method was registered before it, with Nest’s handler', async () => {
    await expect(startApp([itemsController('fast')], { servedAfterInit: true })).rejects.toThrow(
      'hot routes: ItemsController.create, ItemsController.touch, ItemsController.find not ' +
        'served (serveHotRoutes after app.init()?)',
    );
  });
});
