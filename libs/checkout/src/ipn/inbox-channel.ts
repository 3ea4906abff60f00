/** The channel on which the api's stored notifications wake the worker's inbox relay. */
export const INBOX_CHANNEL = 'ipn_inbox';

/**
 * How long a stored notification is the signal's to hand over: its row comes due this long after
 * it was stored. A worker that heard the signal queues its job from the signal alone, without
 * writing the row; one that did not (none listening, the queue full, the signal too long) leaves
 * it to the relay's claim once it is due, as for any due row.
 */
export const HANDOVER_SECONDS = 5;

/** A signal's payload must stay under PostgreSQL's 8,000 bytes. */
const MAX_SIGNAL_BYTES = 7_900;

/** A stored notification as its signal hands it over: what its verification job needs. */
export interface HandedOverRow {
  id: string;
  /** The order's tracking id, else the row's id: the job's de-duplication key. */
  orderKey: string;
  traceParent: string | null;
}

/** The signal: the rows stored together and when they come due (ms since the epoch). */
export interface InboxSignal {
  dueAt: number;
  rows: HandedOverRow[];
}

/**
 * The signal's payload: as many of the rows as fit (the rest come due and are claimed). Empty
 * when none fits: a plain wake-up.
 */
export function encodeInboxSignal(signal: InboxSignal): string {
  const head = `{"dueAt":${signal.dueAt},"rows":[`;
  let text = head;
  let bytes = Buffer.byteLength(head) + 2;
  for (const row of signal.rows) {
    const item = JSON.stringify([row.id, row.orderKey, row.traceParent]);
    const size = Buffer.byteLength(item) + 1;
    if (bytes + size > MAX_SIGNAL_BYTES) break;
    text += text === head ? item : `,${item}`;
    bytes += size;
  }
  return text === head ? '' : `${text}]}`;
}

/** The rows a signal hands over; none for a plain wake-up or a payload it cannot read. */
export function decodeInboxSignal(payload: string | undefined): InboxSignal | null {
  if (!payload) return null;
  try {
    const parsed = JSON.parse(payload) as { dueAt?: unknown; rows?: unknown };
    if (typeof parsed.dueAt !== 'number' || !Array.isArray(parsed.rows)) return null;
    const rows: HandedOverRow[] = [];
    for (const row of parsed.rows as unknown[]) {
      if (!Array.isArray(row)) return null;
      const [id, orderKey, traceParent] = row as unknown[];
      if (typeof id !== 'string' || typeof orderKey !== 'string') return null;
      rows.push({
        id,
        orderKey,
        traceParent: typeof traceParent === 'string' ? traceParent : null,
      });
    }
    return { dueAt: parsed.dueAt, rows };
  } catch {
    return null;
  }
}
