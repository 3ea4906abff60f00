import { AdminSessions, sessionCookieOptions } from './admin-session';

describe('admin cookie sessions', () => {
  const sessions = new AdminSessions(['alice:alice-secret-key', 'bob:bob-secret-key']);
  const signed = (key: string, now?: number) =>
    sessions.signer.sign(sessions.sessionFor(key, now) as string);

  it('proves the key name without carrying the key', () => {
    const cookie = signed('alice-secret-key');
    expect(cookie).not.toContain('alice-secret-key');
    expect(sessions.verify(cookie)).toBe('alice');
  });

  it('refuses unknown keys, tampered names, forged signatures and expired sessions', () => {
    expect(sessions.sessionFor('nope')).toBeUndefined();
    const cookie = signed('alice-secret-key');
    const [, expiry, signature] = cookie.split('.');
    const asBob = `${Buffer.from('bob').toString('base64url')}.${expiry}.${signature}`;
    expect(sessions.verify(asBob)).toBeUndefined();
    expect(sessions.verify(`${cookie.slice(0, -2)}xx`)).toBeUndefined();
    expect(sessions.verify(cookie, Date.now() + 9 * 3600_000)).toBeUndefined();
    expect(sessions.signer.unsign('no-dot')).toEqual({ valid: false, renew: false, value: null });
  });

  it('authenticates a Bearer admin key or a session cookie', () => {
    const cookie = signed('bob-secret-key');
    const request = (headers: Record<string, string>, cookies: Record<string, string> = {}) => ({
      headers,
      cookies,
    });
    expect(sessions.authenticate(request({ authorization: 'Bearer bob-secret-key' }))).toBe('bob');
    expect(sessions.authenticate(request({}, { other: '1', admin_session: cookie }))).toBe('bob');
    expect(sessions.authenticate(request({ authorization: 'Bearer shop-key' }))).toBeUndefined();
    expect(sessions.authenticate(request({}))).toBeUndefined();
  });

  it('is signed, HttpOnly, SameSite=Strict and scoped to /admin; Secure only in production', () => {
    expect(sessionCookieOptions(true)).toMatchObject({
      signed: true,
      httpOnly: true,
      sameSite: 'strict',
      path: '/admin',
      secure: true,
    });
    expect(sessionCookieOptions(false).secure).toBe(false);
  });
});
