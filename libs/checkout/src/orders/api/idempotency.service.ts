import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { IdempotencyKeyEntity } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';

const TTL_MS = 24 * 3_600_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface StoredAnswer {
  status: number;
  body: unknown;
}

export interface IdempotentRequest {
  /** The shop key's fingerprint and the route, e.g. "3fa2…:POST /v1/checkouts". */
  scope: string;
  key: string;
  body: unknown;
}

/** JSON with object keys sorted at every level, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const requestHash = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body)).digest('hex');

/**
 * Idempotency-Key handling. The first request claims the key with a row that has no answer yet;
 * twins (retries, or the same request sent twenty times at once) find the row and wait for its
 * answer instead of calling the gateway again. Only successful answers are kept (24 h): a failed
 * attempt releases the key so the client can retry, and the retry meets the reference rules
 * (same reference, same amount → the existing order), never a second gateway order.
 */
@Injectable()
export class IdempotencyService {
  /** How long a twin waits for the first request's answer before answering 409. */
  waitMs = 30_000;

  constructor(private readonly dataSource: DataSource) {}

  static checkKey(key: string): void {
    if (!KEY_PATTERN.test(key)) {
      throw CheckoutError.invalid([
        { field: 'Idempotency-Key', reason: 'must be 1–255 visible ASCII characters' },
      ]);
    }
  }

  async run(
    request: IdempotentRequest,
    execute: () => Promise<StoredAnswer>,
  ): Promise<StoredAnswer> {
    IdempotencyService.checkKey(request.key);
    const hash = requestHash(request.body);
    const deadline = Date.now() + this.waitMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
      if (await this.claim(request, hash)) return this.executeClaimed(request, execute);
      const row = await this.repository().findOneBy({ scope: request.scope, key: request.key });
      if (row && row.expiresAt.getTime() <= Date.now()) {
        await this.repository().delete({
          scope: request.scope,
          key: request.key,
          expiresAt: LessThan(new Date()),
        });
        continue;
      }
      if (row) {
        if (row.requestHash !== hash) {
          throw new CheckoutError(
            'idempotency_key_reused',
            'this Idempotency-Key was used with another request body',
          );
        }
        if (row.responseStatus !== null) {
          return { status: row.responseStatus, body: row.responseBody };
        }
      }
      // No row: the first request failed and released the key; claim it on the next turn.
      if (Date.now() > deadline) {
        throw new CheckoutError(
          'idempotency_request_in_progress',
          'a request with this Idempotency-Key is still in progress; retry shortly',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private async executeClaimed(
    request: IdempotentRequest,
    execute: () => Promise<StoredAnswer>,
  ): Promise<StoredAnswer> {
    let answer: StoredAnswer;
    try {
      answer = await execute();
    } catch (error) {
      await this.repository().delete({ scope: request.scope, key: request.key });
      throw error;
    }
    await this.repository().update(
      { scope: request.scope, key: request.key },
      { responseStatus: answer.status, responseBody: answer.body as object },
    );
    return answer;
  }

  /** Inserts the in-flight row; false when another request holds the key (or held it < 24 h ago). */
  private async claim(request: IdempotentRequest, hash: string): Promise<boolean> {
    const now = new Date();
    const inserted = await this.repository()
      .createQueryBuilder()
      .insert()
      .values({
        scope: request.scope,
        key: request.key,
        requestHash: hash,
        expiresAt: new Date(now.getTime() + TTL_MS),
      })
      .orIgnore()
      .returning(['key'])
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  private repository() {
    return this.dataSource.getRepository(IdempotencyKeyEntity);
  }
}
