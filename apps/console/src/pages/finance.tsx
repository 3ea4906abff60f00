import { useState } from 'preact/hooks';
import { adminApi, DailyReport, FinanceRange, Schemas } from '../admin-api';
import { Problem, Said, useActs } from '../answer';
import { Column, DataTable } from '../data-table';
import { Field } from '../fields';
import { label, money } from '../format';

const today = () => new Date().toISOString().slice(0, 10);
const monthStart = () => `${today().slice(0, 8)}01`;

type Day = Schemas['DailyReportRowResponse'];

/** A count of movements and their sum: "3 · KES 900.00". */
const moved = (count: number, amount: string, currency: string) =>
  `${count} · ${money(amount, currency)}`;

const COLUMNS: Column<Day>[] = [
  { head: 'Day', cell: (row) => row.day },
  { head: 'Method', cell: (row) => row.payment_method ?? label(null) },
  {
    head: 'Payments',
    class: 'amount',
    cell: (row) => moved(row.payments, row.payments_amount, row.currency),
  },
  {
    head: 'Refunds',
    class: 'amount',
    cell: (row) => moved(row.refunds, row.refunds_amount, row.currency),
  },
  {
    head: 'Reversals',
    class: 'amount',
    cell: (row) => moved(row.reversals, row.reversals_amount, row.currency),
  },
  { head: 'Net', class: 'amount', cell: (row) => money(row.net_amount, row.currency) },
  { head: 'Failed', cell: (row) => row.failed },
  { head: 'Cancelled', cell: (row) => row.cancelled },
];

/** The files finance closes with; the payments come in Excel's form when the operator asks. */
const FILES = [
  {
    id: 'finance-export',
    path: '/v1/admin/exports/payments.csv',
    text: 'Download the payments (CSV)',
    forExcel: true,
  },
  {
    id: 'finance-daily-csv',
    path: '/v1/admin/reports/daily.csv',
    text: 'Download the daily report (CSV)',
    forExcel: false,
  },
];

/** The daily report of a range (local days in a time zone) and the files finance closes with. */
export function FinancePage() {
  const [from, setFrom] = useState(monthStart());
  const [to, setTo] = useState(today());
  const [tz, setTz] = useState('');
  const [currency, setCurrency] = useState('');
  const [account, setAccount] = useState('');
  const [excel, setExcel] = useState(false);
  const [report, setReport] = useState<DailyReport | null>(null);
  const { act, busy, said, problem } = useActs();
  const range = (): FinanceRange => ({
    from,
    to,
    ...(tz.trim() ? { tz: tz.trim() } : {}),
    ...(currency.trim() ? { currency: currency.trim().toUpperCase() } : {}),
    ...(account.trim() ? { account: account.trim().toLowerCase() } : {}),
  });

  const download = (path: string, forExcel: boolean) =>
    act(async () => {
      const query: Record<string, string> = { ...range() };
      // Excel opens a file as UTF-8 only with a byte-order mark.
      if (forExcel) query.excel = '1';
      return `Downloaded ${await adminApi.download(path, query)}`;
    });

  return (
    <main id="main">
      <h1>Finance</h1>
      <form
        id="finance-form"
        onSubmit={(event) => {
          event.preventDefault();
          act(async () => {
            setReport(await adminApi.daily(range()));
            return null;
          });
        }}
      >
        <Field
          id="finance-from"
          label="From (day)"
          type="date"
          required
          value={from}
          onValue={setFrom}
        />
        <Field
          id="finance-to"
          label="To (day, included)"
          type="date"
          required
          value={to}
          onValue={setTo}
        />
        <Field
          id="finance-tz"
          label="Time zone (empty: the service's)"
          placeholder="Africa/Nairobi"
          maxLength={64}
          value={tz}
          onValue={setTz}
        />
        <Field
          id="finance-currency"
          label="Currency (empty: every one)"
          maxLength={3}
          value={currency}
          onValue={setCurrency}
        />
        <Field
          id="finance-account"
          label="Merchant account (empty: every one)"
          maxLength={20}
          value={account}
          onValue={setAccount}
        />
        <button type="submit" disabled={busy}>
          Show the daily report
        </button>
        {FILES.map((file) => (
          <button
            type="button"
            key={file.id}
            id={file.id}
            class="secondary"
            disabled={busy}
            onClick={() => download(file.path, file.forExcel && excel)}
          >
            {file.text}
          </button>
        ))}
        <label class="check">
          <input
            id="finance-excel"
            type="checkbox"
            checked={excel}
            onChange={(event) => setExcel((event.target as HTMLInputElement).checked)}
          />
          The payments file for Excel
        </label>
      </form>
      {said && <Said text={said} />}
      {problem && <Problem id="finance-problem" text={problem} />}
      {report && (
        <>
          <p id="finance-range" class="counts">
            From {report.from} to {report.to} ({report.tz})
          </p>
          <DataTable
            id="daily"
            label="Daily report"
            columns={COLUMNS}
            rows={report.rows}
            rowKey={(row) => `${row.day}:${row.currency}:${row.payment_method ?? ''}`}
            empty="No payment, refund, failure or cancellation in the range."
            emptyId="no-days"
          />
        </>
      )}
    </main>
  );
}
