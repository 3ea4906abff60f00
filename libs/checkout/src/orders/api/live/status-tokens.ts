import { createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
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
  /** The secret as a key object, made once: createHmac would make one from the text each call. */
  private readonly secret: KeyObject;

  constructor(@Inject(SERVICE_CONFIG) config: Pick<ServiceConfig, 'statusTokenSecret'>) {
    this.secret = createSecretKey(Buffer.from(config.statusTokenSecret, 'utf8'));
  }

  issue(merchantReference: string): string {
    return `${PREFIX}${this.mac(merchantReference).toString('base64url')}`;
  }

  /**
   * The order's status_token beside an answer that names an order (new or replayed): derived,
   * never stored, so a replay from the idempotency table carries it too.
   */
  besideAnswer(body: unknown): unknown {
    const reference = (body as { reference?: unknown } | null)?.reference;
    return typeof reference === 'string'
      ? { ...(body as object), status_token: this.issue(reference) }
      : body;
  }

  /**
   * Compared as text, in constant time: a decoded comparison would accept the few spellings of a
   * token that differ only in the unused bits of its last base64url character.
   */
  verify(merchantReference: string, presented: string): boolean {
    const given = Buffer.from(presented);
    const expected = Buffer.from(this.issue(merchantReference));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(merchantReference: string): Buffer {
    return createHmac('sha256', this.secret).update(`order-status\n${merchantReference}`).digest();
  }
}
