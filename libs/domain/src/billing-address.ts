/** The customer's billing details as the gateway takes them on an order (all optional there). */
export interface BillingAddress {
  email?: string;
  phone?: string;
  firstName?: string;
  middleName?: string;
  lastName?: string;
  /** ISO 3166-1 alpha-2. */
  countryCode?: string;
  line1?: string;
  line2?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  zipCode?: string;
}
