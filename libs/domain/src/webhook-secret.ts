/**
 * Standard Webhooks signing secrets: `whsec_` and the base64 of the key's bytes. The key is the
 * decoded bytes, so a shop's official verification library and our signer agree on it.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Shorter keys are refused: the spec asks for 24 to 64 random bytes. */
export const MIN_WEBHOOK_SECRET_BYTES = 24;
export const MAX_WEBHOOK_SECRET_BYTES = 64;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The signing key of a well-formed secret, or why the secret is not one. */
export function webhookSigningKey(secret: string): { key: Buffer } | { problem: string } {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    return { problem: `must start with ${WEBHOOK_SECRET_PREFIX}` };
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) {
    return { problem: `must be ${WEBHOOK_SECRET_PREFIX} followed by standard base64` };
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_WEBHOOK_SECRET_BYTES || key.length > MAX_WEBHOOK_SECRET_BYTES) {
    return {
      problem: `must encode ${MIN_WEBHOOK_SECRET_BYTES} to ${MAX_WEBHOOK_SECRET_BYTES} bytes (got ${key.length})`,
    };
  }
  return { key };
}

/** A new secret from random bytes the caller draws (the domain has no randomness of its own). */
export function webhookSecretFrom(randomKey: Buffer): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomKey.toString('base64')}`;
}
