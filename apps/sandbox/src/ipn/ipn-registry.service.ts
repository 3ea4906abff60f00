import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { SandboxConfig } from '@app/config';
import { ERRORS, IPN_MESSAGES, SUCCESS_MESSAGE, VALIDATION_ERROR } from '../gateway-choices';
import { GatewayInstant, gatewayNow, utcSevenDigits, utcTrimmed } from '../gateway-time';
import { isHttpUrl, presentString } from '../http/fields';
import { GatewayReply, ok } from '../http/gateway-reply';
import { BoundBody, fieldsOf } from '../http/raw-body';
import { SANDBOX_CONFIG } from '../sandbox-config.token';

export interface IpnRegistration {
  id: number;
  merchantId: string;
  url: string;
  ipnId: string;
  method: 'GET' | 'POST';
  createdAt: GatewayInstant;
}

/** Registered notification URLs: idempotent by URL per merchant, rate limited per merchant. */
@Injectable()
export class IpnRegistry {
  private readonly byId = new Map<string, IpnRegistration>();
  private readonly byUrl = new Map<string, IpnRegistration>();
  private readonly lastSuccessAt = new Map<string, number>();
  private nextId = 4000;

  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  find(merchantId: string, ipnId: string): IpnRegistration | undefined {
    const registration = this.byId.get(ipnId.toLowerCase());
    return registration && registration.merchantId === merchantId ? registration : undefined;
  }

  /** Any registration, whatever the merchant (notification delivery). */
  byIpnId(ipnId: string): IpnRegistration | undefined {
    return this.byId.get(ipnId.toLowerCase());
  }

  register(merchantId: string, body: BoundBody): GatewayReply {
    const last = this.lastSuccessAt.get(merchantId);
    if (last !== undefined && Date.now() - last < this.config.ipnRateLimitMs) {
      return { status: 409, body: { message: JSON.stringify(ERRORS.ipnRateLimited) } };
    }
    const fields = fieldsOf(body);
    const url = presentString(fields, 'url');
    const type = presentString(fields, 'ipn_notification_type');
    const problems: string[] = [];
    if (url === undefined) problems.push(IPN_MESSAGES.urlRequired);
    else if (!isHttpUrl(url)) problems.push(IPN_MESSAGES.urlInvalid);
    if (type === undefined) problems.push(IPN_MESSAGES.typeRequired);
    else if (type.length > 4) problems.push(IPN_MESSAGES.typeTooLong);
    else if (!['GET', 'POST'].includes(type.toUpperCase())) problems.push(IPN_MESSAGES.typeInvalid);
    if (problems.length > 0 || url === undefined || type === undefined) {
      return ok(this.failure(url ?? null, { ...VALIDATION_ERROR, message: problems.join('|') }));
    }

    const key = `${merchantId}\u0000${url}`;
    const existing = this.byUrl.get(key);
    this.lastSuccessAt.set(merchantId, Date.now());
    if (existing) return ok(this.describe(existing, utcTrimmed(existing.createdAt)));
    const registration: IpnRegistration = {
      id: (this.nextId += 1),
      merchantId,
      url,
      ipnId: randomUUID(),
      method: type.toUpperCase() as 'GET' | 'POST',
      createdAt: gatewayNow(),
    };
    this.byUrl.set(key, registration);
    this.byId.set(registration.ipnId, registration);
    return ok(this.describe(registration, utcSevenDigits(registration.createdAt)));
  }

  list(merchantId: string): GatewayReply {
    const mine = [...this.byUrl.values()].filter((item) => item.merchantId === merchantId);
    return ok(mine.map((item) => this.listing(item, utcTrimmed(item.createdAt))));
  }

  /** Forgets the rate-limit clock (control API reset). */
  resetRateLimit(): void {
    this.lastSuccessAt.clear();
  }

  private describe(item: IpnRegistration, createdDate: string): unknown {
    return { id: item.id, ...this.listing(item, createdDate), message: SUCCESS_MESSAGE };
  }

  /** One registration as GetIpnList shows it (RegisterIPN adds the id and a message around it). */
  private listing(item: IpnRegistration, createdDate: string): Record<string, unknown> {
    return {
      url: item.url,
      created_date: createdDate,
      ipn_id: item.ipnId,
      notification_type: item.method === 'GET' ? 0 : 1,
      ipn_notification_type_description: item.method,
      ipn_status: 1,
      ipn_status_decription: 'Active',
      error: null,
      status: '200',
    };
  }

  private failure(url: string | null, error: unknown): unknown {
    return {
      id: 0,
      url,
      created_date: null,
      ipn_id: null,
      notification_type: 0,
      ipn_notification_type_description: null,
      ipn_status: 0,
      ipn_status_decription: null,
      error,
      status: '500',
      message: null,
    };
  }
}
