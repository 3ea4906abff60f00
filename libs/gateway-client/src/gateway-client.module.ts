import { Logger, Module } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { RedisConnection } from '@app/queues';
import { GatewayClient } from './gateway-client';
import { RedisTokenStore, TokenStore, tokenStoreKey } from './token-store';

/**
 * A token store shared by every process without Redis (queues on PostgreSQL): the persistence
 * module provides one over the service's database.
 */
export const SHARED_TOKEN_STORE = Symbol('SHARED_TOKEN_STORE');

/** Builds the client from the validated config; tokens are shared by every process. */
export function gatewayClientFromConfig(
  config: ServiceConfig,
  redis: RedisConnection | null | undefined,
  shared?: TokenStore | null,
): GatewayClient {
  const logger = new Logger(GatewayClient.name);
  const { baseUrl, consumerKey, consumerSecret, timeoutMs, mobileMoneyNetworks } = config.gateway;
  return new GatewayClient({
    baseUrl,
    consumerKey,
    consumerSecret,
    timeoutMs,
    mobileMoneyNetworks,
    productionMode: config.nodeEnv === 'production',
    // Redis when queues run there, else the database; either falls back to this process's memory
    // while it cannot be reached.
    tokenStore:
      redis?.client || !shared ? new RedisTokenStore(redis?.client ?? null, logger) : shared,
    tokenStoreKey: tokenStoreKey(config.queuePrefix, baseUrl, consumerKey),
    logger,
  });
}

/**
 * Provides GatewayClient. Expects SERVICE_CONFIG (ServiceConfigModule) and, when queues run on
 * Redis, RedisConnection (QueueInfrastructureModule) from the application's global modules.
 */
@Module({
  providers: [
    {
      provide: GatewayClient,
      inject: [
        SERVICE_CONFIG,
        { token: RedisConnection, optional: true },
        { token: SHARED_TOKEN_STORE, optional: true },
      ],
      useFactory: gatewayClientFromConfig,
    },
  ],
  exports: [GatewayClient],
})
export class GatewayClientModule {}
