import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DEFAULT_ACCOUNT, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { IpnId } from '@app/domain';
import { GatewayAccounts } from '@app/gateway-client';
import { IpnRegistrationEntity } from '@app/persistence';

/** Any fixed key, shared by every replica (the migration lock uses another). */
const IPN_REGISTRATION_LOCK = 727_372_002;

/**
 * How many IPN registrations the admin list shows, the latest: a deployment adds one per URL and
 * method it is ever given, so a handful in practice.
 */
export const IPN_REGISTRATIONS_LISTED = 100;

/**
 * The path the gateway notifies for an account; its secret segment keeps the URL from being
 * guessed. The account `default` keeps the path it always had; another account's adds its id.
 */
export function ipnPath(config: ServiceConfig, account: string = DEFAULT_ACCOUNT): string {
  const base = `/v1/ipn/${config.ipnPathSecret}`;
  return account === DEFAULT_ACCOUNT ? base : `${base}/${account}`;
}

/** The URL as logs may show it: without the secret segment. */
export function loggableIpnUrl(url: string): string {
  return url.replace(/\/v1\/ipn\/[^/?#]+/, '/v1/ipn/[redacted]');
}

export function ipnUrl(config: ServiceConfig, account: string = DEFAULT_ACCOUNT): string {
  return `${config.publicBaseUrl}${ipnPath(config, account)}`;
}

/**
 * Our notification URL is registered once per account, URL and method, and its ipn_id kept in
 * Postgres, so a new deployment (or replica) reuses it instead of hitting the 8-second
 * registration limit. Each account registers its own URL with its own credentials: a checkout
 * sends its account's ipn_id.
 */
@Injectable()
export class IpnRegistrationService {
  private readonly logger = new Logger(IpnRegistrationService.name);
  private readonly cached = new Map<string, IpnId>();
  private readonly registering = new Map<string, Promise<IpnId>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: GatewayAccounts,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** The accounts of the deployment, each registering its own URL. */
  get accountIds(): string[] {
    return this.accounts.ids();
  }

  url(account: string = DEFAULT_ACCOUNT): string {
    return ipnUrl(this.config, account);
  }

  get method(): 'GET' | 'POST' {
    return this.config.ipnNotificationMethod;
  }

  /** The ipn_id to send as notification_id: stored, or registered now (one call at a time). */
  async currentIpnId(account: string = DEFAULT_ACCOUNT): Promise<IpnId> {
    const known = this.cached.get(account);
    if (known) return known;
    const stored = await this.stored(account);
    if (stored) {
      this.cached.set(account, stored.ipnId as IpnId);
      return stored.ipnId as IpnId;
    }
    return this.registerOnce(account);
  }

  /**
   * The gateway refused `rejected` as notification_id: it no longer knows it (the sandbox keeps
   * its registrations in memory and forgets them on restart; a merchant may remove one in the
   * gateway's dashboard). The stored id if a worker registered a new one meanwhile, else a new
   * registration.
   */
  async replaceRejected(account: string, rejected: IpnId): Promise<IpnId> {
    if (this.cached.get(account) === rejected) this.cached.delete(account);
    const stored = await this.stored(account);
    if (stored && stored.ipnId !== rejected) {
      this.cached.set(account, stored.ipnId as IpnId);
      return stored.ipnId as IpnId;
    }
    return this.registerOnce(account, rejected);
  }

  /** Concurrent callers share one registration call per account. */
  private registerOnce(account: string, rejected?: IpnId): Promise<IpnId> {
    let pending = this.registering.get(account);
    if (!pending) {
      pending = this.register(account, rejected).finally(() => this.registering.delete(account));
      this.registering.set(account, pending);
    }
    return pending;
  }

  /**
   * Registers (the gateway answers the original ipn_id for a known URL) and stores the answer,
   * unless another process did while this one waited: replicas take a transaction advisory lock
   * (it also holds behind a transaction-mode pooler) and look again under it, so the api replicas
   * and the workers starting together make one RegisterIPN call per account. `rejected` is an id
   * the gateway no longer knows: finding it stored still means registering anew.
   */
  async register(account: string = DEFAULT_ACCOUNT, rejected?: IpnId): Promise<IpnId> {
    return this.dataSource.transaction(async (manager) => {
      // The default account keeps the lock it always had (replicas of an older release share it).
      if (account === DEFAULT_ACCOUNT) {
        await manager.query('SELECT pg_advisory_xact_lock($1)', [IPN_REGISTRATION_LOCK]);
      } else {
        await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
          IPN_REGISTRATION_LOCK,
          account,
        ]);
      }
      const stored = await manager
        .getRepository(IpnRegistrationEntity)
        .findOneBy({ url: this.url(account), method: this.method });
      if (stored && stored.ipnId !== rejected) {
        this.cached.set(account, stored.ipnId as IpnId);
        return stored.ipnId as IpnId;
      }
      return this.registerAndStore(manager, account);
    });
  }

  private async registerAndStore(manager: EntityManager, account: string): Promise<IpnId> {
    const url = this.url(account);
    const registration = await this.accounts.client(account).registerIpn(url, this.method);
    await manager
      .createQueryBuilder()
      .insert()
      .into(IpnRegistrationEntity)
      .values({
        url,
        method: this.method,
        gatewayAccount: account,
        ipnId: registration.ipnId,
        gatewayCreatedAt: registration.createdAt,
      })
      .orUpdate(['ipn_id', 'gateway_created_at', 'gateway_account'], ['url', 'method'])
      .execute();
    this.logger.log(
      { account, url: loggableIpnUrl(url), method: this.method, ipnId: registration.ipnId },
      'IPN URL registered',
    );
    this.cached.set(account, registration.ipnId);
    return registration.ipnId;
  }

  /** The latest IPN_REGISTRATIONS_LISTED registrations (one per URL and method), oldest first. */
  async list(): Promise<IpnRegistrationEntity[]> {
    const latest = await this.dataSource
      .getRepository(IpnRegistrationEntity)
      .find({ order: { createdAt: 'DESC' }, take: IPN_REGISTRATIONS_LISTED });
    return latest.reverse();
  }

  /** Whether a stored registration is one this deployment uses now (its account's URL). */
  isCurrent(row: IpnRegistrationEntity): boolean {
    return (
      this.accounts.has(row.gatewayAccount) &&
      row.url === this.url(row.gatewayAccount) &&
      row.method === this.method
    );
  }

  private stored(account: string): Promise<IpnRegistrationEntity | null> {
    return this.dataSource
      .getRepository(IpnRegistrationEntity)
      .findOneBy({ url: this.url(account), method: this.method });
  }
}
