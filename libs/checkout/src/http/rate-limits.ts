import { ExecutionContext, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  ThrottlerGuard,
  ThrottlerModule,
  ThrottlerOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { RedisConnection, SharedWindows } from '@app/queues';
import { bearerKey, fingerprintOf } from './api-keys';

const MINUTE_MS = 60_000;

/**
 * Counts requests in windows shared by every api replica (SharedWindows: in Redis, or in
 * PostgreSQL on the Postgres queue backend, leased). A limit protects the service; it must not take it
 * down, so while the store cannot count, requests pass (and the outage is logged once).
 */
@Injectable()
export class SharedRateWindows implements ThrottlerStorage {
  private readonly logger = new Logger(SharedRateWindows.name);
  private failing = false;
  private readonly windows: SharedWindows;

  constructor(
    redis: RedisConnection,
    dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.windows = new SharedWindows(redis, dataSource);
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const windowKey = `${this.config.queuePrefix}:rate:${key}`;
    try {
      const [hits, leftMs] = await this.windows.hit(windowKey, ttl, limit);
      if (this.failing) this.logger.log('rate limits counting again');
      this.failing = false;
      const secondsLeft = Math.max(1, Math.ceil(leftMs / 1000));
      return {
        totalHits: hits,
        timeToExpire: secondsLeft,
        isBlocked: hits > limit,
        timeToBlockExpire: hits > limit ? secondsLeft : 0,
      };
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(
          `rate limits not enforced, the store does not answer: ${(error as Error).message}`,
        );
      }
      this.failing = true;
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }
}

interface TrackedRequest {
  url?: string;
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Which limit a route is under; null for routes that are not limited (health, metrics). */
function limitedAs(url: string): 'shop' | 'admin' | null {
  const path = url.split('?')[0];
  if (path.startsWith('/health') || path === '/metrics') return null;
  return path.startsWith('/v1/admin') || path.startsWith('/admin') ? 'admin' : 'shop';
}

/**
 * Limits per API key across every route and replica (a shop key and an admin key each have their
 * own window), per source address for requests without a key (console sessions too); 429 with Retry-After when over.
 */
@Injectable()
export class CheckoutRateGuard extends ThrottlerGuard {
  /** Each route's @SkipThrottle and @Throttle settings per throttler, read at its first request. */
  private readonly routeSettings = new WeakMap<object, WeakMap<object, RouteThrottle[]>>();

  /**
   * ThrottlerGuard's own check, with each route's decorator settings read once rather than on
   * every request (ten metadata lookups a request, each through the class's prototype chain):
   * decorators are all set as the classes load.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (await this.shouldSkip(context)) return true;
    for (const route of this.settingsOf(context.getHandler(), context.getClass())) {
      const { throttler } = route;
      const skipIf = throttler.skipIf ?? this.commonOptions.skipIf;
      if (route.skip || skipIf?.(context)) continue;
      const limit = numberOf(
        await valueOf(context, route.limit ?? throttler.limit),
        'limit',
        throttler,
      );
      const ttl = numberOf(await valueOf(context, route.ttl ?? throttler.ttl), 'ttl', throttler);
      const blockDuration = numberOf(
        await valueOf(context, route.blockDuration ?? throttler.blockDuration ?? ttl),
        'blockDuration',
        throttler,
      );
      await this.handleRequest({
        context,
        limit,
        ttl,
        throttler,
        blockDuration,
        getTracker: route.getTracker ?? throttler.getTracker ?? this.commonOptions.getTracker!,
        generateKey: route.generateKey ?? throttler.generateKey ?? this.commonOptions.generateKey!,
      });
    }
    return true;
  }

  private settingsOf(handler: object, controller: object): RouteThrottle[] {
    let byController = this.routeSettings.get(handler);
    if (!byController) {
      byController = new WeakMap();
      this.routeSettings.set(handler, byController);
    }
    let settings = byController.get(controller);
    if (!settings) {
      const read = <T>(key: string, throttler: ThrottlerOptions): T | undefined =>
        this.reflector.getAllAndOverride<T | undefined>(key + throttler.name, [
          handler as () => void,
          controller as () => void,
        ]);
      settings = this.throttlers.map((throttler) => ({
        throttler,
        skip: read<boolean>(THROTTLER_SKIP, throttler) ?? false,
        limit: read(THROTTLER_LIMIT, throttler),
        ttl: read(THROTTLER_TTL, throttler),
        blockDuration: read(THROTTLER_BLOCK_DURATION, throttler),
        getTracker: read(THROTTLER_TRACKER, throttler),
        generateKey: read(THROTTLER_KEY_GENERATOR, throttler),
      }));
      byController.set(controller, settings);
    }
    return settings;
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<TrackedRequest>();
    return limitedAs(request.url ?? '') === null;
  }

  protected override async getTracker(request: TrackedRequest): Promise<string> {
    const key = bearerKey(request.headers.authorization as string | undefined);
    // A console session counts under its address: a made-up cookie must not buy a new window.
    return key ? `key:${fingerprintOf(key)}` : `ip:${request.ip ?? 'unknown'}`;
  }

  protected override generateKey(context: ExecutionContext, tracker: string): string {
    const request = context.switchToHttp().getRequest<TrackedRequest>();
    return `${limitedAs(request.url ?? '')}:${tracker}`;
  }
}

/** One throttler's settings on a route: what its decorators set, else the throttler's own. */
interface RouteThrottle {
  throttler: ThrottlerOptions;
  skip: boolean;
  limit: ThrottlerOptions['limit'] | undefined;
  ttl: ThrottlerOptions['ttl'] | undefined;
  blockDuration: ThrottlerOptions['blockDuration'] | undefined;
  getTracker: ThrottlerOptions['getTracker'];
  generateKey: ThrottlerOptions['generateKey'];
}

/** A setting given as a value or as a function of the request, as ThrottlerGuard resolves it. */
function valueOf(context: ExecutionContext, value: unknown): unknown {
  return typeof value === 'function'
    ? (value as (context: ExecutionContext) => unknown)(context)
    : value;
}

/** A number, or the error ThrottlerGuard raises for anything else. */
function numberOf(value: unknown, option: string, throttler: ThrottlerOptions): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number)) {
    throw new Error(
      `Invalid "${option}" for the "${throttler.name}" throttler: expected a number, got ${JSON.stringify(value)}.`,
    );
  }
  return number;
}

/** Requests a minute the route's key (or address) may make. */
function limitOf(context: ExecutionContext, config: ServiceConfig): number {
  const request = context.switchToHttp().getRequest<TrackedRequest>();
  return limitedAs(request.url ?? '') === 'admin'
    ? config.rateLimits.adminPerMinute
    : config.rateLimits.shopPerMinute;
}

@Module({ providers: [SharedRateWindows], exports: [SharedRateWindows] })
class RateWindowsModule {}

/** The api's rate limits: RATE_LIMIT_SHOP_PER_MINUTE and RATE_LIMIT_ADMIN_PER_MINUTE (0: off). */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateWindowsModule],
      inject: [SERVICE_CONFIG, SharedRateWindows],
      useFactory: (config: ServiceConfig, storage: SharedRateWindows) => ({
        storage,
        throttlers: [
          {
            name: 'default',
            ttl: MINUTE_MS,
            limit: (context: ExecutionContext) => limitOf(context, config),
            skipIf: (context: ExecutionContext) => limitOf(context, config) === 0,
          },
        ],
      }),
    }),
  ],
  // One global guard instance, which Nest's pipeline and the hot controller methods
  // (serveHotRoutes, libs/checkout/src/http/hot-routes.ts) both read from Nest's global guards.
  providers: [CheckoutRateGuard, { provide: APP_GUARD, useExisting: CheckoutRateGuard }],
})
export class RateLimitsModule {}

/**
 * The IPN route's ceiling per source address, kept in this process (no I/O on the gateway's
 * path): a flood from one address gets 429 after RATE_LIMIT_IPN_PER_MINUTE in a minute, per api
 * replica. The gateway retries a 429 like any non-200. A fixed window per address, so each
 * notification costs one map lookup (a sliding log would keep a timestamp per request).
 */
export class SourceAddressCeiling {
  private readonly windows = new Map<string, { endsAt: number; hits: number }>();
  private nextSweepAt = 0;

  constructor(private readonly perMinute: number) {}

  /** Seconds to wait when this address is over its ceiling, else null. */
  retryAfter(address: string, now: number = Date.now()): number | null {
    if (this.perMinute === 0) return null;
    if (now >= this.nextSweepAt) {
      for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
      this.nextSweepAt = now + MINUTE_MS;
    }
    let window = this.windows.get(address);
    if (!window || window.endsAt <= now) {
      window = { endsAt: now + MINUTE_MS, hits: 0 };
      this.windows.set(address, window);
    }
    window.hits += 1;
    return window.hits > this.perMinute
      ? Math.max(1, Math.ceil((window.endsAt - now) / 1000))
      : null;
  }
}
