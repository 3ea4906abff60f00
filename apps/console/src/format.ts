/**
 * How the console writes values: pure functions, unit tested (format.spec.ts). Every value reaches
 * the page as text (Preact sets textContent), never as markup.
 */

/** An amount as the API gives it (a decimal string) with its currency: "KES 1,500.00". */
export function money(
  amount: string | null | undefined,
  currency: string | null | undefined,
): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const negative = amount.startsWith('-');
  const [whole, fraction = '00'] = amount.replace('-', '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${currency ? `${currency} ` : ''}${grouped}.${fraction.padEnd(2, '0')}`;
}

/** A UTC instant as the operator reads it: "2026-11-26 09:30:05 UTC" (the API's dates are UTC). */
export function instant(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** How long ago, roughly, from `now`: "just now", "5 min ago", "3 h ago", "2 d ago". */
export function ago(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '—';
  const seconds = Math.round((now.getTime() - new Date(iso).getTime()) / 1000);
  if (Number.isNaN(seconds)) return '—';
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** A status word for people: "mobile_money" → "mobile money". */
export function label(value: string | null | undefined): string {
  return value ? value.replace(/_/g, ' ') : '—';
}

/** The text of a refusal, as the API gave it: its stable code, then its message (fields named). */
export function refusalText(error: { code: string; message: string }): string {
  return `${error.code}: ${error.message}`;
}

/** A share of a whole as people read it: "42.9%", "—" of nothing. */
export function share(part: number, whole: number): string {
  if (whole <= 0) return '—';
  return `${((100 * part) / whole).toFixed(1)}%`;
}

/** A lag bound in ms as people read it: "250 ms", "2 s", "5 min"; null is past the last bin. */
export function lag(ms: number | null | undefined, over = 'over 5 min'): string {
  if (ms === null || ms === undefined) return over;
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1000} s`;
  return `${ms / 60_000} min`;
}

/**
 * A bucket's start as its chart and table name it: the minute or hour in UTC ("09:30"), or the
 * local day ("2026-11-26", the day the API began it at in its zone).
 */
export function bucketName(iso: string, bucket: 'minute' | 'hour' | 'day', tz: string): string {
  const date = new Date(iso);
  if (bucket !== 'day') return `${date.toISOString().slice(11, 16)} UTC`;
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(date);
  return parts;
}

/**
 * Days picked in a date field ("2026-11-01", either may be empty) as the instants the API filters
 * by: from the first day's UTC midnight to the midnight after the last (the last day included).
 */
export function utcDays(first: string, last: string): { from?: string; to?: string } {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const range: { from?: string; to?: string } = {};
  if (day.test(first)) range.from = `${first}T00:00:00.000Z`;
  if (day.test(last)) {
    const after = new Date(`${last}T00:00:00.000Z`);
    after.setUTCDate(after.getUTCDate() + 1);
    range.to = after.toISOString();
  }
  return range;
}
