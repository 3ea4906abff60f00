const CONTROL_PATH = /^\/__sandbox(\/|\?|$)/i;

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * The control API settles payments at will: a request for it that arrived on an interface other
 * than loopback is refused unless SANDBOX_CONTROL_PUBLIC says otherwise.
 */
export function controlRefused(
  url: string,
  localAddress: string | undefined,
  controlPublic: boolean,
): boolean {
  return !controlPublic && CONTROL_PATH.test(url) && !isLoopback(localAddress);
}
