import { QueryFailedError } from 'typeorm';

/**
 * SQLSTATEs that say the server cannot serve right now (shutting down, crashed, starting up, out
 * of connections or disk), as opposed to "this statement is wrong"; class 08 is the connection.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53100', '53400']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);
/** What node-postgres says when a connection ends or cannot be had within the pool's wait. */
const POOL_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** Whether a failed call means PostgreSQL is out of reach for now (worth a retry, not a bug). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const cause = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  if (typeof cause !== 'object' || cause === null) return false;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    // A bare network error reaches us only from the pool's connect (the gateway client's own
    // errors are typed GatewayErrors before they get here).
    if (NETWORK_CODES.has(code)) return true;
  }
  return typeof message === 'string' && POOL_MESSAGES.test(message);
}
