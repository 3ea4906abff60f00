import type { FastifyReply } from 'fastify';
import { stringifyExact } from './exact-json';

/** An answer of the gateway: HTTP status and a body that may hold exact decimals. */
export interface GatewayReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): GatewayReply => ({ status: 200, body });

/** Thrown where a handler cannot go on (auth, media type); the filter renders it as is. */
export class GatewayHttpError extends Error {
  constructor(readonly reply: GatewayReply) {
    super(`gateway answered HTTP ${reply.status}`);
  }
}

export function sendGatewayReply(res: FastifyReply, reply: GatewayReply): void {
  void res
    .code(reply.status)
    .headers(reply.headers ?? {})
    .header('content-type', 'application/json; charset=utf-8')
    .send(stringifyExact(reply.body));
}

/** Transport-level answers: an object with `message` only, no error object (section 7.3). */
export const messageOnly = (status: number, message: string): GatewayReply => ({
  status,
  body: { message },
});
