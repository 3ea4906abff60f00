import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { adminApi, ApiRefusal, session } from './admin-api';
import { problemOf } from './answer';
import { AttentionPage } from './pages/attention';
import { AuditPage } from './pages/audit';
import { FinancePage } from './pages/finance';
import { OrderPage } from './pages/order';
import { OverviewPage } from './pages/overview';
import { ReconciliationPage } from './pages/reconciliation';
import { OrdersPage } from './pages/orders';
import { RefundsPage } from './pages/refunds';
import { WebhooksPage } from './pages/webhooks';
import { PAGES, Place, placeOf } from './places';

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    session.signIn(key);
    try {
      await adminApi.orders({});
      onSignedIn();
    } catch (error) {
      session.signOut();
      setProblem(
        error instanceof ApiRefusal && (error.status === 401 || error.status === 403)
          ? 'That key is not an admin key.'
          : problemOf(error),
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" class="sign-in">
      <h1>Sign in</h1>
      <form onSubmit={submit}>
        <label for="admin-key">Admin API key</label>
        <input
          id="admin-key"
          type="password"
          autocomplete="off"
          required
          value={key}
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {problem && (
        <p id="sign-in-problem" class="problem" role="alert">
          {problem}
        </p>
      )}
      <p class="hint">The key stays in this tab only and is forgotten when the tab closes.</p>
    </main>
  );
}

function Console() {
  const [signedIn, setSignedIn] = useState(session.key() !== null);
  const [place, setPlace] = useState<Place>(placeOf(location.hash));
  useEffect(() => {
    const follow = () => setPlace(placeOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const signOut = () => {
    session.signOut();
    setSignedIn(false);
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header>
        <span class="brand">pesapal-checkout</span>
        {signedIn && (
          <nav aria-label="Console">
            {PAGES.map(([name, title]) => (
              <a href={`#/${name}`} aria-current={place.page === name ? 'page' : undefined}>
                {title}
              </a>
            ))}
            <button
              type="button"
              id="queues"
              class="secondary"
              onClick={() => void adminApi.openQueues().catch(() => signOut())}
            >
              Queues
            </button>
            <button type="button" id="sign-out" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      {!signedIn ? (
        <SignIn onSignedIn={() => setSignedIn(true)} />
      ) : place.page === 'order' ? (
        <OrderPage key={place.reference} reference={place.reference} onRefused={signOut} />
      ) : place.page === 'refunds' ? (
        <RefundsPage onRefused={signOut} />
      ) : place.page === 'webhooks' ? (
        <WebhooksPage onRefused={signOut} />
      ) : place.page === 'attention' ? (
        <AttentionPage onRefused={signOut} />
      ) : place.page === 'reconciliation' ? (
        <ReconciliationPage onRefused={signOut} />
      ) : place.page === 'finance' ? (
        <FinancePage />
      ) : place.page === 'audit' ? (
        <AuditPage onRefused={signOut} />
      ) : place.page === 'orders' ? (
        <OrdersPage onRefused={signOut} />
      ) : (
        <OverviewPage onRefused={signOut} />
      )}
    </>
  );
}

render(<Console />, document.getElementById('console') as HTMLElement);
