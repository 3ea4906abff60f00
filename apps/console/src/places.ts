/** The console's places, in the URL's hash (the overview without one): #/orders, #/orders/<reference>, #/refunds, #/access, ... */
export type Place =
  | { page: 'overview' }
  | { page: 'orders' }
  | { page: 'order'; reference: string }
  | { page: 'refunds' }
  | { page: 'webhooks' }
  | { page: 'attention' }
  | { page: 'unmatched-payments' }
  | { page: 'payment-links' }
  | { page: 'reconciliation' }
  | { page: 'finance' }
  | { page: 'audit' }
  | { page: 'access' };

/** The pages of the navigation, in its order. */
export const PAGES = [
  ['overview', 'Overview'],
  ['orders', 'Orders'],
  ['attention', 'Needs attention'],
  ['unmatched-payments', 'Payments without an order'],
  ['payment-links', 'Payment links'],
  ['refunds', 'Refunds'],
  ['webhooks', 'Webhooks'],
  ['reconciliation', 'Reconciliation'],
  ['finance', 'Finance'],
  ['audit', 'Audit trail'],
  ['access', 'Access'],
] as const;

export function placeOf(hash: string): Place {
  const match = /^#\/orders\/(.+)$/.exec(hash);
  if (match) {
    try {
      return { page: 'order', reference: decodeURIComponent(match[1]) };
    } catch {
      return { page: 'orders' }; // not a name any order has
    }
  }
  const page = PAGES.find(([name]) => hash === `#/${name}`);
  return { page: page ? page[0] : 'overview' };
}
