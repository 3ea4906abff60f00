import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * A real OpenID provider in a child process (identity-provider-server.ts), for the api's sign-in.
 * `env` is what the api needs to use it; `signIn(login)` goes through the whole flow over HTTP
 * (authorization code with PKCE, the provider's development login) and answers the session cookie.
 */
export interface IdentityProvider {
  issuer: string;
  env: Record<string, string>;
  /** Makes the provider's next ID tokens wrong in one way (or `normal` again). */
  misbehave(
    mode: 'normal' | 'wrong-audience' | 'expired' | 'wrong-issuer' | 'wrong-nonce' | 'forged',
  ): Promise<void>;
  close(): Promise<void>;
}

export const ROLE_MAP =
  'payments-admins=admin,finance=refund_approver,support=refund_requester,staff=viewer,engineering=developer,audit=auditor';

export async function startIdentityProvider(
  apiUrl: string,
  port: number,
): Promise<IdentityProvider> {
  const clientId = 'pesapal-console';
  const clientSecret = randomBytes(16).toString('hex');
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, 'identity-provider-server.ts')],
    {
      cwd: join(__dirname, '..', '..'),
      env: {
        ...process.env,
        IDP_PORT: String(port),
        IDP_CLIENT_ID: clientId,
        IDP_CLIENT_SECRET: clientSecret,
        IDP_REDIRECT_URI: `${apiUrl}/admin/auth/callback`,
        NODE_ENV: 'development',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`identity provider not ready: ${errors}`)),
      20_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      const ready = /ready (\S+)/.exec(chunk.toString());
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`identity provider exited (${code}): ${errors}`));
    });
  });
  return {
    issuer,
    env: {
      OIDC_ISSUER_URL: issuer,
      OIDC_CLIENT_ID: clientId,
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_ROLE_MAP: ROLE_MAP,
      OIDC_SCOPES: 'openid email profile groups',
    },
    misbehave: async (mode) => {
      const answer = await fetch(`${issuer}/_test/id-token`, {
        method: 'POST',
        body: JSON.stringify({ mode }),
      });
      if (answer.status !== 204) throw new Error(`misbehave: ${answer.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Cookies as a browser keeps them, per host (enough for the provider's and the api's). */
class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();

  take(url: string, response: Response): void {
    const host = new URL(url).host;
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    this.cookies.set(host, jar);
  }

  header(url: string): string {
    const jar = this.cookies.get(new URL(url).host);
    return jar ? [...jar].map(([name, value]) => `${name}=${value}`).join('; ') : '';
  }

  get(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).host)?.get(name);
  }
}

export interface SignInAttempt {
  /** The api's answer to the provider's redirect back. */
  callback: Response;
  callbackBody: string;
  /** The console session's cookie value, when signed in. */
  session: string | undefined;
}

/**
 * Signs `login` in through the api and the provider, as a browser would, following redirects by
 * hand. `tamper` may change the callback URL (a wrong state) before the api sees it.
 */
export async function signInOverHttp(
  apiUrl: string,
  login: string,
  tamper: (callbackUrl: URL) => void = () => undefined,
): Promise<SignInAttempt> {
  const jar = new CookieJar();
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) },
    });
    jar.take(url, response);
    return response;
  };
  let response = await go(`${apiUrl}/admin/auth/login`);
  let url = response.headers.get('location') as string;
  for (let hop = 0; hop < 10; hop += 1) {
    if (url.startsWith(`${apiUrl}/admin/auth/callback`)) break;
    response = await go(url);
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location') as string, url).href;
      continue;
    }
    // The provider's development login form: any login and password.
    const page = await response.text();
    const action = /action="([^"]+)"/.exec(page)?.[1];
    if (!action)
      throw new Error(
        `the provider answered ${response.status} without a form: ${page.slice(0, 300)}`,
      );
    response = await go(new URL(action, url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
    });
    url = new URL(response.headers.get('location') as string, url).href;
  }
  const callbackUrl = new URL(url);
  tamper(callbackUrl);
  const callback = await go(callbackUrl.href);
  return {
    callback,
    callbackBody: await callback.text(),
    session: jar.get(apiUrl, 'pc_session'),
  };
}
