import { decodeInboxSignal, encodeInboxSignal, HandedOverRow } from './inbox-channel';

const row = (n: number, traceParent: string | null = null): HandedOverRow => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  orderKey: `tracking-${n}`,
  traceParent,
});

describe('the inbox signal', () => {
  it('hands its rows over with when they come due', () => {
    const rows = [row(1), row(2, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')];
    const payload = encodeInboxSignal({ dueAt: 1_764_000_000_123, rows });
    expect(decodeInboxSignal(payload)).toEqual({ dueAt: 1_764_000_000_123, rows });
  });

  it('stays under PostgreSQL’s 8,000 bytes, handing over the rows that fit', () => {
    const rows = Array.from({ length: 200 }, (_, n) => ({ ...row(n), orderKey: 'é'.repeat(100) }));
    const payload = encodeInboxSignal({ dueAt: 1, rows });
    expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    const handed = decodeInboxSignal(payload)?.rows ?? [];
    expect(handed.length).toBeGreaterThan(0);
    expect(handed.length).toBeLessThan(200);
    expect(handed).toEqual(rows.slice(0, handed.length));
  });

  it('is a plain wake-up when no row fits or none is given, and when it cannot be read', () => {
    expect(encodeInboxSignal({ dueAt: 1, rows: [] })).toBe('');
    expect(encodeInboxSignal({ dueAt: 1, rows: [{ ...row(1), orderKey: 'x'.repeat(9000) }] })).toBe(
      '',
    );
    expect(decodeInboxSignal('')).toBeNull();
    expect(decodeInboxSignal(undefined)).toBeNull();
    expect(decodeInboxSignal('{"dueAt":"soon","rows":[]}')).toBeNull();
    expect(decodeInboxSignal('{"dueAt":1,"rows":[[1,"x",null]]}')).toBeNull();
    expect(decodeInboxSignal('not json')).toBeNull();
  });
});
