import { AdminSessions, cookieValue } from './admin-session';

describe('admin cookie sessions', () => {
  const sessions = new AdminSessions(['alice:alice-secret-key', 'bob:bob-secret-key']);

  it('proves the key name without carrying the key', () => {
    const token = sessions.issue('alice-secret-key') as string;
    expect(token).not.toContain('alice-secret-key');
    expect(sessions.verify(token)).toBe('alice');
  });

  it('refuses unknown keys, tampered names, forged signatures and expired sessions', () => {
    expect(sessions.issue('nope')).toBeUndefined();
    const token = sessions.issue('alice-secret-key') as string;
    const [, expiry, signature] = token.split('.');
    const asBob = `${Buffer.from('bob').toString('base64url')}.${expiry}.${signature}`;
    expect(sessions.verify(asBob)).toBeUndefined();
    expect(sessions.verify(`${token.slice(0, -2)}xx`)).toBeUndefined();
    expect(sessions.verify(token, Date.now() + 9 * 3600_000)).toBeUndefined();
  });

  it('authenticates a Bearer admin key or a session cookie', () => {
    const token = sessions.issue('bob-secret-key') as string;
    expect(sessions.authenticate({ authorization: 'Bearer bob-secret-key' })).toBe('bob');
    expect(sessions.authenticate({ cookie: `other=1; admin_session=${token}` })).toBe('bob');
    expect(sessions.authenticate({ authorization: 'Bearer shop-key' })).toBeUndefined();
    expect(cookieValue('a=1; b=2=3', 'b')).toBe('2=3');
  });
});
