import { Logger, Module } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { RedisConnection } from '@app/queues';
import { GatewayClient } from './gateway-client';
import { RedisTokenStore, tokenStoreKey } from './token-store';

/** Builds the client from the validated config; tokens are shared by every process through Redis. */
export function gatewayClientFromConfig(
  config: ServiceConfig,
  redis: RedisConnection | null | undefined,
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
    // Null client (queues on Postgres) or Redis down: the store falls back to this process's memory.
    tokenStore: new RedisTokenStore(redis?.client ?? null, logger),
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
      inject: [SERVICE_CONFIG, { token: RedisConnection, optional: true }],
      useFactory: gatewayClientFromConfig,
    },
  ],
  exports: [GatewayClient],
})
export class GatewayClientModule {}
