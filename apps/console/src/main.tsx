import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { adminApi, ApiRefusal, AuthMethods, session, WhoAmI } from './admin-api';
import { isSignedOut, Loading, problemOf } from './answer';
import {
  isConsoleOperator,
  operatorLabel,
  Permission,
  rolesText,
  SignedIn,
  useCan,
} from './operator';
import { AccessPage } from './pages/access';
import { AttentionPage } from './pages/attention';
import { AuditPage } from './pages/audit';
import { FinancePage } from './pages/finance';
import { OrderPage } from './pages/order';
import { OverviewPage } from './pages/overview';
import { ReconciliationPage } from './pages/reconciliation';
import { OrdersPage } from './pages/orders';
import { RefundsPage } from './pages/refunds';
import { PaymentLinksPage } from './pages/payment-links';
import { UnmatchedPaymentsPage } from './pages/unmatched-payments';
import { WebhooksPage } from './pages/webhooks';
import { PAGES, Place, placeOf } from './places';

/** The permission each page reads with (the Access page: anyone signed in). */
const PAGE_NEEDS: Record<Place['page'], Permission | null> = {
  overview: 'admin:read',
  orders: 'admin:read',
  order: 'admin:read',
  attention: 'admin:read',
  'unmatched-payments': 'admin:read',
  'payment-links': 'payment_links:manage',
  refunds: 'admin:read',
  webhooks: 'admin:read',
  reconciliation: 'admin:read',
  finance: 'finance:export',
  audit: 'audit:read',
  access: null,
};

/**
 * Where the operator stands: being checked, signed out (with what to say, and whether checking
 * again may help: the service did not answer), or signed in as someone.
 */
type Access =
  | { state: 'checking' }
  | { state: 'signed-out'; said: string | null; retry?: boolean }
  | { state: 'signed-in'; who: WhoAmI };

/**
 * Who this tab is, on start: the key it holds, else a person's session cookie (the browser sends
 * it by itself). A refusal (401) is simply not signed in. Without a key, and with nobody able to
 * sign in through the identity provider, there is no one to ask about (and no refusal to write
 * to the audit trail).
 */
async function start(methods: Promise<AuthMethods | null>): Promise<Access> {
  const key = session.key();
  if (!key && !(await methods)?.identity_provider) return { state: 'signed-out', said: null };
  try {
    const who = await adminApi.whoAmI();
    if (!key) session.followCookie(who.session?.csrf_token ?? null);
    return { state: 'signed-in', who };
  } catch (error) {
    const refused = error instanceof ApiRefusal && (error.status === 401 || error.status === 403);
    if (refused && key) session.signOut();
    if (refused) return { state: 'signed-out', said: null };
    return { state: 'signed-out', said: problemOf(error), retry: true };
  }
}

/** The identity provider's sign-in, coming back to the place asked for (the console by default). */
function loginUrl(login: string): string {
  const path = login.startsWith('/') && !login.startsWith('//') ? login : '/admin/auth/login';
  const back = location.hash.length > 2 ? encodeURIComponent(`/admin${location.hash}`) : '/admin';
  return `${path}?return_to=${back}`;
}

function SignIn({
  methods,
  said,
  onSignedIn,
  onRetry,
}: {
  methods: AuthMethods | null;
  said: string | null;
  onSignedIn: (who: WhoAmI) => void;
  /** Offered when the check on start failed for want of an answer. */
  onRetry?: () => void;
}) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(said);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    session.signIn(key);
    try {
      const who = await adminApi.whoAmI();
      // A shop's key (bootstrap or scoped) is refused here: the console is for admin keys.
      if (!isConsoleOperator(who.operator)) {
        session.signOut();
        setProblem('That key is not an admin key.');
        return;
      }
      onSignedIn(who);
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
      {methods?.identity_provider && (
        <>
          <p>
            <button
              type="button"
              id="sign-in-sso"
              onClick={() => location.assign(loginUrl(methods.login))}
            >
              Sign in with your company account
            </button>
          </p>
          <h2>Or with an API key</h2>
          <p class="hint">An admin key of the service's environment, or a scoped API key.</p>
        </>
      )}
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
      {onRetry && (
        <button type="button" id="sign-in-retry" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
      <p class="hint">The key stays in this tab only and is forgotten when the tab closes.</p>
    </main>
  );
}

/** Who is signed in, with their roles, and the ways to sign out. */
function SignedInAs({ who, onSignOut }: { who: WhoAmI; onSignOut: (everywhere: boolean) => void }) {
  const operator = who.operator;
  const name = operatorLabel(operator);
  return (
    <div class="who">
      <span id="signed-in-as">
        Signed in as <strong>{name}</strong> <span class="muted">({rolesText(operator)})</span>
      </span>
      <button type="button" id="sign-out" onClick={() => onSignOut(false)}>
        Sign out
      </button>
      {operator.kind === 'person' && (
        <button
          type="button"
          id="sign-out-everywhere"
          class="secondary"
          onClick={() => onSignOut(true)}
        >
          Sign out everywhere
        </button>
      )}
    </div>
  );
}

/** A page the operator may not read: what it needs, and where to see what they may do. */
function NotAllowed({ title, permission }: { title: string; permission: Permission }) {
  return (
    <main id="main">
      <h1>{title}</h1>
      <p id="not-allowed">
        This page needs the permission <code>{permission}</code>, which you do not hold.{' '}
        <a href="#/access">See what you may do</a>.
      </p>
    </main>
  );
}

function Page({ place, onRefused }: { place: Place; onRefused: () => void }) {
  const can = useCan();
  const needs = PAGE_NEEDS[place.page];
  if (needs && !can(needs)) {
    const title = PAGES.find(([name]) => name === place.page)?.[1] ?? 'Order';
    return <NotAllowed title={title} permission={needs} />;
  }
  switch (place.page) {
    case 'order':
      return <OrderPage key={place.reference} reference={place.reference} onRefused={onRefused} />;
    case 'refunds':
      return <RefundsPage onRefused={onRefused} />;
    case 'webhooks':
      return <WebhooksPage onRefused={onRefused} />;
    case 'attention':
      return <AttentionPage onRefused={onRefused} />;
    case 'unmatched-payments':
      return <UnmatchedPaymentsPage onRefused={onRefused} />;
    case 'payment-links':
      return <PaymentLinksPage onRefused={onRefused} />;
    case 'reconciliation':
      return <ReconciliationPage onRefused={onRefused} />;
    case 'finance':
      return <FinancePage />;
    case 'audit':
      return <AuditPage onRefused={onRefused} />;
    case 'access':
      return <AccessPage onRefused={onRefused} />;
    case 'orders':
      return <OrdersPage onRefused={onRefused} />;
    default:
      return <OverviewPage onRefused={onRefused} />;
  }
}

function Console() {
  const [access, setAccess] = useState<Access>({ state: 'checking' });
  const [methods, setMethods] = useState<AuthMethods | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [place, setPlace] = useState<Place>(placeOf(location.hash));
  const asked = useMemo(
    () =>
      adminApi.authMethods().then(
        (found) => found,
        () => null,
      ),
    [],
  );
  const check = () => {
    setAccess({ state: 'checking' });
    void start(asked).then(setAccess);
  };
  useEffect(() => {
    // Whether people sign in with the company's identity provider, asked once.
    void asked.then(setMethods);
    check();
    const follow = () => setPlace(placeOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  const who = access.state === 'signed-in' ? access.who : null;
  const can = (permission: Permission) => who?.operator.permissions.includes(permission) ?? false;

  /** The key or the session refused (401): back to signing in, as when signing out. */
  const signedOut = () => {
    const hadSession = Boolean(who?.session);
    session.signOut();
    setProblem(null);
    setAccess({
      state: 'signed-out',
      said: hadSession ? 'Your session has ended: sign in again.' : null,
    });
  };

  /** A person's session is ended at the server first (one, or all of theirs); a key is forgotten. */
  async function signOut(everywhere: boolean) {
    setProblem(null);
    if (who?.session || who?.operator.kind === 'person') {
      try {
        await adminApi.endSession(everywhere);
      } catch (error) {
        if (!isSignedOut(error)) {
          setProblem(problemOf(error));
          return;
        }
      }
    }
    session.signOut();
    setAccess({ state: 'signed-out', said: null });
  }

  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header>
        <span class="brand">pesapal-checkout</span>
        {who && (
          <>
            <nav aria-label="Console">
              {PAGES.filter(([name]) => {
                const needs = PAGE_NEEDS[name];
                return needs === null || can(needs);
              }).map(([name, title]) => (
                <a href={`#/${name}`} aria-current={place.page === name ? 'page' : undefined}>
                  {title}
                </a>
              ))}
              {/* The queue view is opened by a navigation: a bootstrap key's cookie, or a
                  person's session (a scoped key cannot go with a navigation). */}
              {can('operations:write') && who.operator.kind !== 'api_key' && (
                <button
                  type="button"
                  id="queues"
                  class="secondary"
                  onClick={() =>
                    void adminApi.openQueues().catch((error: unknown) => {
                      if (isSignedOut(error)) signedOut();
                      else setProblem(problemOf(error));
                    })
                  }
                >
                  Queues
                </button>
              )}
            </nav>
            <SignedInAs who={who} onSignOut={(everywhere) => void signOut(everywhere)} />
          </>
        )}
      </header>
      {problem && (
        <p id="console-problem" class="problem banner" role="alert">
          {problem}
        </p>
      )}
      {access.state === 'checking' ? (
        <main id="main">
          <Loading what="who you are" />
        </main>
      ) : access.state === 'signed-out' ? (
        <SignIn
          key={access.said ?? ''}
          methods={methods}
          said={access.said}
          onSignedIn={(signedIn) => setAccess({ state: 'signed-in', who: signedIn })}
          onRetry={access.retry ? check : undefined}
        />
      ) : (
        <SignedIn.Provider value={access.who}>
          <Page place={place} onRefused={signedOut} />
        </SignedIn.Provider>
      )}
    </>
  );
}

render(<Console />, document.getElementById('console') as HTMLElement);
