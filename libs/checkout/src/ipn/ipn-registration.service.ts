import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { IpnId } from '@app/domain';
import { GatewayClient } from '@app/gateway-client';
import { IpnRegistrationEntity } from '@app/persistence';

/** Any fixed key, shared by every replica (the migration lock uses another). */
const IPN_REGISTRATION_LOCK = 727_372_002;

/**
 * How many IPN registrations the admin list shows, the latest: a deployment adds one per URL and
 * method it is ever given, so a handful in practice.
 */
export const IPN_REGISTRATIONS_LISTED = 100;

/** The path the gateway notifies; its secret segment keeps the URL from being guessed. */
export function ipnPath(config: ServiceConfig): string {
  return `/v1/ipn/${config.ipnPathSecret}`;
}

/**
 * Every path under /v1/ipn, as a Nest route pattern. These requests get no access log line: each
 * one that carries a notification is an inbox row (with its remote address), which is the record
 * an admin reads, and at thousands per second the log line would cost a sixth of the request.
 */
export const IPN_ROUTES = 'v1/ipn/*rest';

/** The URL as logs may show it: without the secret segment. */
export function loggableIpnUrl(url: string): string {
  return url.replace(/\/v1\/ipn\/[^/?#]+/, '/v1/ipn/[redacted]');
}

export function ipnUrl(config: ServiceConfig): string {
  return `${config.publicBaseUrl}${ipnPath(config)}`;
}

/**
 * Our notification URL is registered once per URL and method and its ipn_id kept in Postgres,
 * so a new deployment (or replica) reuses it instead of hitting the 8-second registration limit.
 */
@Injectable()
export class IpnRegistrationService {
  private readonly logger = new Logger(IpnRegistrationService.name);
  private cached: IpnId | undefined;
  private registering: Promise<IpnId> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly gateway: GatewayClient,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  get url(): string {
    return ipnUrl(this.config);
  }

  get method(): 'GET' | 'POST' {
    return this.config.ipnNotificationMethod;
  }

  /** The ipn_id to send as notification_id: stored, or registered now (one call at a time). */
  async currentIpnId(): Promise<IpnId> {
    if (this.cached) return this.cached;
    const stored = await this.stored();
    if (stored) {
      this.cached = stored.ipnId as IpnId;
      return this.cached;
    }
    return this.registerOnce();
  }

  /**
   * The gateway refused `rejected` as notification_id: it no longer knows it (the sandbox keeps
   * its registrations in memory and forgets them on restart; a merchant may remove one in the
   * gateway's dashboard). The stored id if a worker registered a new one meanwhile, else a new
   * registration.
   */
  async replaceRejected(rejected: IpnId): Promise<IpnId> {
    if (this.cached === rejected) this.cached = undefined;
    const stored = await this.stored();
    if (stored && stored.ipnId !== rejected) {
      this.cached = stored.ipnId as IpnId;
      return this.cached;
    }
    return this.registerOnce(rejected);
  }

  /** Concurrent callers share one registration call. */
  private registerOnce(rejected?: IpnId): Promise<IpnId> {
    this.registering ??= this.register(rejected).finally(() => (this.registering = undefined));
    return this.registering;
  }

  /**
   * Registers (the gateway answers the original ipn_id for a known URL) and stores the answer,
   * unless another process did while this one waited: replicas take a transaction advisory lock
   * (it also holds behind a transaction-mode pooler) and look again under it, so the api replicas
   * and the workers starting together make one RegisterIPN call. `rejected` is an id the gateway
   * no longer knows: finding it stored still means registering anew.
   */
  async register(rejected?: IpnId): Promise<IpnId> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [IPN_REGISTRATION_LOCK]);
      const stored = await manager
        .getRepository(IpnRegistrationEntity)
        .findOneBy({ url: this.url, method: this.method });
      if (stored && stored.ipnId !== rejected) {
        this.cached = stored.ipnId as IpnId;
        return this.cached;
      }
      return this.registerAndStore(manager);
    });
  }

  private async registerAndStore(manager: EntityManager): Promise<IpnId> {
    const registration = await this.gateway.registerIpn(this.url, this.method);
    await manager
      .createQueryBuilder()
      .insert()
      .into(IpnRegistrationEntity)
      .values({
        url: this.url,
        method: this.method,
        ipnId: registration.ipnId,
        gatewayCreatedAt: registration.createdAt,
      })
      .orUpdate(['ipn_id', 'gateway_created_at'], ['url', 'method'])
      .execute();
    this.logger.log(
      { url: loggableIpnUrl(this.url), method: this.method, ipnId: registration.ipnId },
      'IPN URL registered',
    );
    this.cached = registration.ipnId;
    return registration.ipnId;
  }

  /** The latest IPN_REGISTRATIONS_LISTED registrations (one per URL and method), oldest first. */
  async list(): Promise<IpnRegistrationEntity[]> {
    const latest = await this.dataSource
      .getRepository(IpnRegistrationEntity)
      .find({ order: { createdAt: 'DESC' }, take: IPN_REGISTRATIONS_LISTED });
    return latest.reverse();
  }

  private stored(): Promise<IpnRegistrationEntity | null> {
    return this.dataSource
      .getRepository(IpnRegistrationEntity)
      .findOneBy({ url: this.url, method: this.method });
  }
}
