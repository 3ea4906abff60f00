import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TRANSPORT_MESSAGES } from '../gateway-choices';
import { MalformedJsonError, parseExactJson } from './exact-json';
import { GatewayHttpError, messageOnly } from './gateway-reply';

/**
 * Replaces Fastify's parsers with one that keeps every body as text, so that each endpoint can
 * answer a missing Content-Type, a form body or broken JSON the way the gateway does.
 */
export function keepRawBodies(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
}

/** What the gateway's model binding makes of a request body. */
export type BoundBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'malformed' }
  /** Accepted by content type (form, XML) but nothing binds. */
  | { kind: 'unbound' };

const UNBOUND_TYPES = ['application/x-www-form-urlencoded', 'application/xml', 'text/xml'];

/** Binds a body the way ASP.NET would; throws the 415 answer for a missing or foreign type. */
export function bindBody(req: FastifyRequest): BoundBody {
  const header = req.headers['content-type'];
  const mediaType = (header ?? '').split(';')[0].trim().toLowerCase();
  const text = typeof req.body === 'string' ? req.body : '';
  if (mediaType === 'application/json' || mediaType === 'text/json') {
    if (text.trim() === '') return { kind: 'json', value: null };
    try {
      return { kind: 'json', value: parseExactJson(text) };
    } catch (error) {
      if (error instanceof MalformedJsonError) return { kind: 'malformed' };
      throw error;
    }
  }
  if (UNBOUND_TYPES.includes(mediaType)) return { kind: 'unbound' };
  throw new GatewayHttpError(
    messageOnly(
      415,
      TRANSPORT_MESSAGES.unsupportedMediaType(mediaType || 'application/octet-stream'),
    ),
  );
}

/** The bound JSON object, or an empty one when nothing bound. */
export function fieldsOf(body: BoundBody): Record<string, unknown> {
  if (body.kind !== 'json') return {};
  const value = body.value;
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Query parameters are matched case-insensitively, as ASP.NET binds them. */
export function queryParameter(req: FastifyRequest, name: string): string | undefined {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const key = Object.keys(query).find(
    (candidate) => candidate.toLowerCase() === name.toLowerCase(),
  );
  if (key === undefined) return undefined;
  const value = query[key];
  return Array.isArray(value) ? String(value[0]) : String(value);
}
