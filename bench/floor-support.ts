/** What the two floor processes (bench/floor-*.ts) share: their settings, serving and stopping. */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/**
 * A whole-number setting: the variable `name`, else `fallback` (a setting of the api the floor
 * follows), else `byDefault`; anything else stops the floor with the value it read.
 */
export function wholeNumberEnv(
  name: string,
  fallback: string | undefined,
  byDefault: number,
  least: number,
): number {
  const given = process.env[name] ?? fallback;
  const value = Number(given ?? byDefault);
  if (!Number.isInteger(value) || value < least) {
    throw new Error(`${name} must be a whole number of at least ${least} (got ${given})`);
  }
  return value;
}

/** Listens on PORT with a health route for the bench to wait on; SIGTERM closes it and its pool. */
export function serveFloor(app: FastifyInstance, pool: Pool): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.listen({ host: '127.0.0.1', port: Number(requiredEnv('PORT')) }).catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
  process.on('SIGTERM', () => {
    void app.close().then(() => pool.end());
  });
}
