/** Where a request came from: what an HTTP request says of itself. */
export interface AuditOrigin {
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

/** The parts of a Fastify request the audit trail keeps. */
export interface OriginRequest {
  id?: string;
  ip?: string;
  method?: string;
  url?: string;
  routeOptions?: { url?: string };
  headers: Record<string, string | string[] | undefined>;
}

/** Where a request came from, for the audit trail: address, user agent, request id. */
export function originOf(request: OriginRequest): AuditOrigin {
  const agent = request.headers['user-agent'];
  return {
    ip: request.ip ?? null,
    userAgent: Array.isArray(agent) ? agent[0] : (agent ?? null),
    requestId: request.id ?? null,
  };
}

/** A route as the trail names it: its method and template, never the path's values or query. */
export function routeOf(request: OriginRequest): string {
  return `${request.method ?? 'GET'} ${request.routeOptions?.url ?? '(no route)'}`;
}
