import { GatewayClient } from './gateway-client';

/** What names an order's account: every order stores the account it was created with. */
export interface OnGatewayAccount {
  gatewayAccount: string;
}

/**
 * The merchant accounts of a deployment (PESAPAL_ACCOUNTS, or the single pair as `default`), each
 * with its own client: its credentials, its token (shared across processes under its own key)
 * and its IPN rate window. A call for an order always goes through the order's account.
 */
export class GatewayAccounts {
  constructor(
    private readonly clients: ReadonlyMap<string, GatewayClient>,
    /** Each account's currencies. */
    private readonly currencies: ReadonlyMap<string, readonly string[]>,
    /** The account of each currency when a checkout names none. */
    private readonly byCurrency: ReadonlyMap<string, string>,
  ) {}

  /** One account, `default` (a test's or a tool's client): it takes every currency. */
  static single(client: GatewayClient): GatewayAccounts {
    return new SingleAccount(client);
  }

  /** The account's client; an account the deployment does not have is a bug, not a fallback. */
  client(account: string): GatewayClient {
    const client = this.clients.get(account);
    if (!client) {
      throw new Error(
        `the gateway account "${account}" is not configured (PESAPAL_ACCOUNTS): an account stays listed while it has orders`,
      );
    }
    return client;
  }

  forOrder(order: OnGatewayAccount): GatewayClient {
    return this.client(order.gatewayAccount);
  }

  has(account: string): boolean {
    return this.clients.has(account);
  }

  /** The account a checkout in this currency goes to when it names none. */
  accountFor(currency: string): string | undefined {
    return this.byCurrency.get(currency.toUpperCase());
  }

  /** Whether the account takes the currency. */
  takes(account: string, currency: string): boolean {
    return this.currencies.get(account)?.includes(currency.toUpperCase()) ?? false;
  }

  ids(): string[] {
    return [...this.clients.keys()];
  }
}

class SingleAccount extends GatewayAccounts {
  constructor(client: GatewayClient) {
    super(new Map([[client.account ?? 'default', client]]), new Map(), new Map());
  }

  /** Every order is this one account's (a test's orders may name none). */
  override client(): GatewayClient {
    return super.client(this.ids()[0]);
  }

  override accountFor(): string {
    return this.ids()[0];
  }

  override takes(): boolean {
    return true;
  }
}
