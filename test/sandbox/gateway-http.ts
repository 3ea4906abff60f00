import { request } from 'node:http';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Plain node:http, so that a request can go out without any Content-Type at all. */
export function raw(
  method: string,
  url: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: options.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** A merchant's view of the sandbox: JSON calls with its bearer token. */
export class GatewayCaller {
  token = '';

  constructor(readonly sandbox: RunningSandbox) {}

  async authenticate(): Promise<this> {
    const res = await this.post('/Auth/RequestToken', {
      consumer_key: SANDBOX_CREDENTIALS.consumerKey,
      consumer_secret: SANDBOX_CREDENTIALS.consumerSecret,
    });
    this.token = res.json.token as string;
    return this;
  }

  /** `body` as an object is JSON-encoded; as a string it is sent verbatim (exact numbers). */
  post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    return raw('POST', `${this.sandbox.baseUrl}${path}`, {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...this.auth(), ...headers },
    });
  }

  get(path: string): Promise<RawResponse> {
    return raw('GET', `${this.sandbox.baseUrl}${path}`, { headers: this.auth() });
  }

  async registerIpn(url: string, type = 'GET'): Promise<string> {
    const res = await this.post('/URLSetup/RegisterIPN', { url, ipn_notification_type: type });
    if (res.json.status !== '200') throw new Error(`RegisterIPN failed: ${res.text}`);
    return res.json.ipn_id as string;
  }

  order(ipnId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      id: `ord-${Math.random().toString(36).slice(2, 12)}`,
      currency: 'KES',
      amount: 100,
      description: 'Two books',
      callback_url: 'http://shop.example/return',
      cancellation_url: 'http://shop.example/cancelled',
      notification_id: ipnId,
      billing_address: { email_address: 'buyer@example.com', phone_number: '254712345678' },
      ...overrides,
    };
  }

  private auth(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }
}

/** A sandbox of the suite's own, a merchant signed in at it and its IPN URL registered. */
export async function startMerchantSandbox(
  ipnUrl: string,
): Promise<{ sandbox: RunningSandbox; gw: GatewayCaller; ipnId: string }> {
  const sandbox = await startSandbox();
  try {
    const gw = await new GatewayCaller(sandbox).authenticate();
    return { sandbox, gw, ipnId: await gw.registerIpn(ipnUrl) };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
