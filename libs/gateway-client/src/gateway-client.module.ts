import { Logger, Module } from '@nestjs/common';
import { GatewayAccount, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { GatewayAccounts } from './gateway-accounts';
import { RedisConnection } from '@app/queues';
import { infoLinesLogged } from '@app/common';
import { GatewayClient } from './gateway-client';
import { RedisTokenStore, TokenStore, tokenStoreKey } from './token-store';

/**
 * A token store shared by every process without Redis (queues on PostgreSQL): the persistence
 * module provides one over the service's database.
 */
export const SHARED_TOKEN_STORE = Symbol('SHARED_TOKEN_STORE');

/**
 * Builds one client per merchant account from the validated config; each account's token is
 * shared by every process under its own key (its base URL and consumer key).
 */
export function gatewayAccountsFromConfig(
  config: ServiceConfig,
  redis: RedisConnection | null | undefined,
  shared?: TokenStore | null,
): GatewayAccounts {
  const clients = new Map(
    config.gateway.accounts.map((account) => [
      account.id,
      gatewayClientFor(config, account, redis, shared),
    ]),
  );
  return new GatewayAccounts(
    clients,
    new Map(config.gateway.accounts.map((account) => [account.id, account.currencies])),
    config.gateway.accountForCurrency,
  );
}

function gatewayClientFor(
  config: ServiceConfig,
  account: GatewayAccount,
  redis: RedisConnection | null | undefined,
  shared?: TokenStore | null,
): GatewayClient {
  const logger = new Logger(GatewayClient.name);
  const { timeoutMs, mobileMoneyNetworks } = config.gateway;
  const { baseUrl, consumerKey, consumerSecret } = account;
  return new GatewayClient({
    baseUrl,
    consumerKey,
    consumerSecret,
    timeoutMs,
    mobileMoneyNetworks,
    account: account.id,
    productionMode: config.nodeEnv === 'production',
    // Redis when queues run there, else the database; either falls back to this process's memory
    // while it cannot be reached.
    tokenStore:
      redis?.client || !shared ? new RedisTokenStore(redis?.client ?? null, logger) : shared,
    tokenStoreKey: tokenStoreKey(config.queuePrefix, baseUrl, consumerKey),
    logger,
    // A success is an info line (Nest's `log`).
    logsSuccesses: infoLinesLogged,
  });
}

/**
 * Provides GatewayAccounts (a client per merchant account). Expects SERVICE_CONFIG (ServiceConfigModule) and, when queues run on
 * Redis, RedisConnection (QueueInfrastructureModule) from the application's global modules.
 */
@Module({
  providers: [
    {
      provide: GatewayAccounts,
      inject: [
        SERVICE_CONFIG,
        { token: RedisConnection, optional: true },
        { token: SHARED_TOKEN_STORE, optional: true },
      ],
      useFactory: gatewayAccountsFromConfig,
    },
  ],
  exports: [GatewayAccounts],
})
export class GatewayClientModule {}
