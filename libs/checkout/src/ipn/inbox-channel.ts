/** The channel on which the api's stored notifications wake the worker's inbox relay. */
export const INBOX_CHANNEL = 'ipn_inbox';
