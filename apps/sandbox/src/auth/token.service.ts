import { Inject, Injectable } from '@nestjs/common';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SandboxConfig } from '@app/config';
import { ERRORS, SUCCESS_MESSAGE, TOKEN_MESSAGES, VALIDATION_ERROR } from '../gateway-choices';
import { gatewayNow, utcSevenDigits } from '../gateway-time';
import { BoundBody, fieldsOf } from '../http/raw-body';
import { presentString } from '../http/fields';
import { GatewayReply, ok } from '../http/gateway-reply';
import { SANDBOX_CONFIG } from '../sandbox-config.token';

export interface Merchant {
  uid: string;
  consumerKey: string;
}

/** The real token's first claim: a uuid per merchant account (request-token.json). */
const USER_DATA_CLAIM = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/userdata';

interface Claims {
  [USER_DATA_CLAIM]: string;
  uid: string;
  nbf: number;
  exp: number;
  iat: number;
  iss: string;
  aud: string;
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** The merchant's uid: stable per consumer key, never revealing it (the control API shows it). */
export const uidOf = (consumerKey: string): string => {
  const hex = createHash('sha256').update(`sandbox-merchant:${consumerKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** The userdata claim's uuid: stable per merchant, unrelated to its uid. */
const userDataOf = (uid: string): string => {
  const hex = createHash('sha256').update(`sandbox-userdata:${uid}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** Issues and checks HS256 JWTs signed with a secret that never leaves this process. */
@Injectable()
export class TokenService {
  private readonly signingKey = randomBytes(32);
  private readonly merchants: Map<string, Merchant & { consumerSecret: string }>;

  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {
    this.merchants = new Map(
      config.merchants.map((merchant) => [
        uidOf(merchant.consumerKey),
        { ...merchant, uid: uidOf(merchant.consumerKey) },
      ]),
    );
  }

  requestToken(body: BoundBody): GatewayReply {
    const fields = fieldsOf(body);
    const key = presentString(fields, 'consumer_key');
    const secret = presentString(fields, 'consumer_secret');
    const problems: string[] =
      body.kind === 'malformed' ? [...TOKEN_MESSAGES.malformedJsonSegments] : [];
    if (key === undefined) problems.push(TOKEN_MESSAGES.keyRequired);
    if (secret === undefined) problems.push(TOKEN_MESSAGES.secretRequired);
    if (key === undefined || secret === undefined) {
      return ok(this.failure({ ...VALIDATION_ERROR, message: problems.join('|') }));
    }
    const merchant = this.merchants.get(uidOf(key));
    if (!merchant || !this.sameSecret(merchant.consumerSecret, secret)) {
      return ok(this.failure(ERRORS.wrongCredentials));
    }
    const issued = gatewayNow();
    const iat = Math.floor(issued.at.getTime() / 1000);
    const exp = iat + this.config.tokenLifetimeSeconds;
    const issuer = `${this.config.publicUrl}/`;
    const token = this.sign({
      [USER_DATA_CLAIM]: userDataOf(merchant.uid),
      uid: merchant.uid,
      nbf: iat,
      exp,
      iat,
      iss: issuer,
      aud: issuer,
    });
    const expiry = new Date(issued.at.getTime() + this.config.tokenLifetimeSeconds * 1000);
    return ok({
      token,
      expiryDate: utcSevenDigits({ at: expiry, fraction: issued.fraction }),
      error: null,
      status: '200',
      message: SUCCESS_MESSAGE,
    });
  }

  /** The merchant of a valid, unexpired token; undefined otherwise. */
  verify(token: string): Merchant | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const expected = this.signature(`${parts[0]}.${parts[1]}`);
    const given = Buffer.from(parts[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: Claims;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Claims;
    } catch {
      return undefined;
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number' || now >= claims.exp || now < claims.nbf) return undefined;
    const merchant = this.merchants.get(claims.uid);
    return merchant ? { uid: merchant.uid, consumerKey: merchant.consumerKey } : undefined;
  }

  private failure(error: { error_type: string; code: string; message: string }): unknown {
    return { token: null, expiryDate: null, error, status: '500', message: null };
  }

  private sameSecret(expected: string, given: string): boolean {
    const a = createHash('sha256').update(expected).digest();
    const b = createHash('sha256').update(given).digest();
    return timingSafeEqual(a, b);
  }

  private sign(claims: Claims): string {
    const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = base64url(JSON.stringify(claims));
    return `${header}.${payload}.${this.signature(`${header}.${payload}`).toString('base64url')}`;
  }

  private signature(input: string): Buffer {
    return createHmac('sha256', this.signingKey).update(input).digest();
  }
}
