import { useState } from 'preact/hooks';
import { adminApi, DailyReport, FinanceRange } from '../admin-api';
import { label, money } from '../format';
import { problemOf } from '../answer';

const today = () => new Date().toISOString().slice(0, 10);
const monthStart = () => `${today().slice(0, 8)}01`;

/** The daily report of a range (local days in a time zone) and the files finance closes with. */
export function FinancePage() {
  const [from, setFrom] = useState(monthStart());
  const [to, setTo] = useState(today());
  const [tz, setTz] = useState('');
  const [currency, setCurrency] = useState('');
  const [account, setAccount] = useState('');
  const [excel, setExcel] = useState(false);
  const [report, setReport] = useState<DailyReport | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const range = (): FinanceRange => ({
    from,
    to,
    ...(tz.trim() ? { tz: tz.trim() } : {}),
    ...(currency.trim() ? { currency: currency.trim().toUpperCase() } : {}),
    ...(account.trim() ? { account: account.trim().toLowerCase() } : {}),
  });

  async function work(task: () => Promise<void>) {
    setBusy(true);
    setProblem(null);
    setSaid(null);
    try {
      await task();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  }

  const download = (path: string, forExcel: boolean) =>
    work(async () => {
      const query: Record<string, string> = { ...range() };
      // Excel opens a file as UTF-8 only with a byte-order mark.
      if (forExcel) query.excel = '1';
      setSaid(`Downloaded ${await adminApi.download(path, query)}`);
    });

  return (
    <main id="main">
      <h1>Finance</h1>
      <form
        id="finance-form"
        onSubmit={(event) => {
          event.preventDefault();
          void work(async () => setReport(await adminApi.daily(range())));
        }}
      >
        <label for="finance-from">From (day)</label>
        <input
          id="finance-from"
          type="date"
          required
          value={from}
          onInput={(event) => setFrom((event.target as HTMLInputElement).value)}
        />
        <label for="finance-to">To (day, included)</label>
        <input
          id="finance-to"
          type="date"
          required
          value={to}
          onInput={(event) => setTo((event.target as HTMLInputElement).value)}
        />
        <label for="finance-tz">Time zone (empty: the service's)</label>
        <input
          id="finance-tz"
          placeholder="Africa/Nairobi"
          maxLength={64}
          value={tz}
          onInput={(event) => setTz((event.target as HTMLInputElement).value)}
        />
        <label for="finance-currency">Currency (empty: every one)</label>
        <input
          id="finance-currency"
          maxLength={3}
          value={currency}
          onInput={(event) => setCurrency((event.target as HTMLInputElement).value)}
        />
        <label for="finance-account">Merchant account (empty: every one)</label>
        <input
          id="finance-account"
          maxLength={20}
          value={account}
          onInput={(event) => setAccount((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          Show the daily report
        </button>
        <button
          type="button"
          id="finance-export"
          class="secondary"
          disabled={busy}
          onClick={() => void download('/v1/admin/exports/payments.csv', excel)}
        >
          Download the payments (CSV)
        </button>
        <button
          type="button"
          id="finance-daily-csv"
          class="secondary"
          disabled={busy}
          onClick={() => void download('/v1/admin/reports/daily.csv', false)}
        >
          Download the daily report (CSV)
        </button>
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
      {said && (
        <p id="said" class="said" role="status">
          {said}
        </p>
      )}
      {problem && (
        <p id="finance-problem" class="problem" role="alert">
          {problem}
        </p>
      )}
      {report && (
        <>
          <p id="finance-range" class="counts">
            From {report.from} to {report.to} ({report.tz})
          </p>
          {report.rows.length === 0 ? (
            <p id="no-days" class="empty">
              No payment, refund, failure or cancellation in the range.
            </p>
          ) : (
            <div class="table" tabIndex={0} role="region" aria-label="Daily report">
              <table id="daily">
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Method</th>
                    <th scope="col">Payments</th>
                    <th scope="col">Refunds</th>
                    <th scope="col">Reversals</th>
                    <th scope="col">Net</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Cancelled</th>
                  </tr>
                </thead>
                <tbody>
                  {report.rows.map((row) => (
                    <tr key={`${row.day}:${row.currency}:${row.payment_method ?? ''}`}>
                      <td>{row.day}</td>
                      <td>{row.payment_method ?? label(null)}</td>
                      <td class="amount">
                        {row.payments} · {money(row.payments_amount, row.currency)}
                      </td>
                      <td class="amount">
                        {row.refunds} · {money(row.refunds_amount, row.currency)}
                      </td>
                      <td class="amount">
                        {row.reversals} · {money(row.reversals_amount, row.currency)}
                      </td>
                      <td class="amount">{money(row.net_amount, row.currency)}</td>
                      <td>{row.failed}</td>
                      <td>{row.cancelled}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </main>
  );
}
