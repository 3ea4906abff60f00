/** The table and figures a run prints. */
import { OVERVIEW_TARGET_MS } from './measuring';
import { say } from './settings';

export function report(results: Record<string, unknown>, rows: Record<string, unknown>[]): void {
  const pad = (text: unknown, width: number) => String(text).padStart(width);
  say();
  say(
    `| call | small (ms) | ${Number((results.orders as { large: number }).large).toLocaleString('en')} orders (ms) | ratio | after retention (ms) | within max(2×, 25 ms) |`,
  );
  say('| --- | ---: | ---: | ---: | ---: | --- |');
  for (const row of rows) {
    say(
      `| ${String(row.call)} | ${pad(row.small_ms, 6)} | ${pad(row.large_ms, 6)} | ${pad(row.ratio, 5)} | ${pad(row.after_retention_ms, 6)} | ${row.within_target ? 'yes' : 'NO'} |`,
    );
  }
  const idle = results.idle_cpu_ms_per_minute as Record<string, Record<string, number>>;
  say();
  say('idle CPU ms per minute (api, worker, PostgreSQL):');
  say(`  small: ${idle.small.api}, ${idle.small.worker}, ${idle.small.postgres}`);
  say(`  large: ${idle.large.api}, ${idle.large.worker}, ${idle.large.postgres}`);
  say(
    `overview: a year of hours summed in ${String(results.overview_summing_seconds)} s; each window under ${OVERVIEW_TARGET_MS} ms on the large database is the target`,
  );
  say(`bytes per order: ${JSON.stringify(results.bytes_per_order)}`);
  say(`retention: ${JSON.stringify(results.retention)}`);
}
