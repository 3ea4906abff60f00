/** The run's knobs (BENCH_DATA_*), its API keys and how it prints. */
import { randomBytes } from 'node:crypto';

export const TARGET = Number(process.env.BENCH_DATA_ORDERS ?? 10_000_000);
export const CALLS = Number(process.env.BENCH_DATA_CALLS ?? 15);
export const IDLE_SECONDS = Number(process.env.BENCH_DATA_IDLE_SECONDS ?? 60);
export const BATCH = Number(process.env.BENCH_DATA_BATCH ?? 100_000);
export const RETENTION_MINUTES = Number(process.env.BENCH_DATA_RETENTION_MINUTES ?? 30);
export const KEY = randomBytes(8).toString('hex');
export const SHOP = { authorization: `Bearer shop_${KEY}` };
export const ADMIN = { authorization: `Bearer admin_${KEY}` };
export const say = (line = '') => process.stdout.write(`${line}\n`);
export const round = (n: number) => Math.round(n * 100) / 100;
