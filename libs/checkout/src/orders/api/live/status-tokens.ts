import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';

const PREFIX = 'pst_';

/**
 * The read-only token with which a customer's browser follows one order's live status without
 * the shop key: an HMAC of the shop's reference under STATUS_TOKEN_SECRET. Nothing is stored, so
 * every replica (and a checkout replayed by its Idempotency-Key) answers the same token.
 */
@Injectable()
export class StatusTokens {
  private readonly secret: string;

  constructor(@Inject(SERVICE_CONFIG) config: Pick<ServiceConfig, 'statusTokenSecret'>) {
    this.secret = config.statusTokenSecret;
  }

  issue(merchantReference: string): string {
    return `${PREFIX}${this.mac(merchantReference).toString('base64url')}`;
  }

  /** Constant-time: a wrong token takes as long to refuse whatever it shares with the right one. */
  verify(merchantReference: string, presented: string): boolean {
    if (!presented.startsWith(PREFIX)) return false;
    const given = Buffer.from(presented.slice(PREFIX.length), 'base64url');
    const expected = this.mac(merchantReference);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(merchantReference: string): Buffer {
    return createHmac('sha256', this.secret).update(`order-status\n${merchantReference}`).digest();
  }
}
