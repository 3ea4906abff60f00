/**
 * The longest last_error a stored notification keeps (ipn_notifications.last_error is text): the
 * inbox cuts a longer one where it stores it (api/ipn-inbox.ts), and every other writer of it (the
 * verifier, an admin's replay) stays within it.
 */
export const NOTIFICATION_LAST_ERROR_MAX_LENGTH = 2000;
/** What the verifier and the IPN route keep of an error they record: its first 500 characters. */
export const RECORDED_ERROR_MAX_LENGTH = 500;
