/** The campaign's settings (CHAOS_* variables), its log line and how it counts answers. */
import { spawnSync } from 'node:child_process';

const number = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
  return value;
};
export const RATE = number('CHAOS_RATE', 5);
export const KILLS = number('CHAOS_KILLS', 20);
export const REDIS_DOWN_SECONDS = number('CHAOS_REDIS_DOWN_SECONDS', 30);
export const POSTGRES_DOWN_SECONDS = number('CHAOS_POSTGRES_DOWN_SECONDS', 5);
export const SLOW_MS = number('CHAOS_SLOW_MS', 3000);
export const SLOW_SECONDS = number('CHAOS_SLOW_SECONDS', 15);
export const FAILING_SECONDS = number('CHAOS_FAILING_SECONDS', 20);
export const SETTLE_SECONDS = number('CHAOS_SETTLE_SECONDS', 300);
/** Every Nth paid order is refunded in full by an admin. */
export const REFUND_EVERY = 6;
/** Every Nth customer declines at the gateway. */
export const DECLINE_EVERY = 7;
export const RECEIVER_FAILURE_SHARE = 0.1;
/** How long a customer or an admin keeps retrying a call that got no clear answer. */
export const PATIENCE_MS = 180_000;

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
export const BACKEND = process.env.CHAOS_QUEUE_BACKEND ?? (hasRedisServer ? 'redis' : 'postgres');
if (BACKEND !== 'redis' && BACKEND !== 'postgres') {
  throw new Error('CHAOS_QUEUE_BACKEND must be redis or postgres');
}
if (BACKEND === 'redis' && !hasRedisServer) {
  throw new Error('CHAOS_QUEUE_BACKEND=redis needs the redis-server binary');
}

const started = Date.now();
export const say = (line: string): void => {
  process.stdout.write(
    `[chaos ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`,
  );
};

export const tally = (map: Map<string, number>, key: string) =>
  map.set(key, (map.get(key) ?? 0) + 1);

export function format(counts: Map<string, number>): string {
  return [...counts.entries()].map(([key, n]) => `${key}×${n}`).join(', ') || 'none';
}
