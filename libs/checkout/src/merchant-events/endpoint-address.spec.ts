import { addressProblem, endpointUrlProblem } from './endpoint-address';

const PRODUCTION = { requireHttps: true, allowPrivate: false };
const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

describe('webhook endpoint address guard', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.9', /private/],
    ['192.168.1.1', /private/],
    ['fd00:ec2::254', /private/],
    ['169.254.169.254', /link-local/],
    ['fe80::1', /link-local/],
    ['100.100.100.200', /carrier-grade/],
    ['0.0.0.0', /unspecified/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:127.0.0.1', /loopback/],
    ['224.0.0.1', /multicast/],
  ])('refuses %s', (ip, reason) => {
    expect(addressProblem(ip)).toMatch(reason);
  });

  it.each(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:8.8.8.8'])(
    'accepts the public address %s',
    (ip) => {
      expect(addressProblem(ip)).toBeNull();
    },
  );

  it('refuses plain http and private targets in production, by literal or by name', async () => {
    expect(
      await endpointUrlProblem(
        'http://shop.example/hooks',
        PRODUCTION,
        resolvesTo('93.184.215.14'),
      ),
    ).toBe('must use https in production');
    expect(await endpointUrlProblem('https://10.0.0.5/hooks', PRODUCTION)).toMatch(/private/);
    expect(await endpointUrlProblem('https://[::1]/hooks', PRODUCTION)).toMatch(/loopback/);
    expect(
      await endpointUrlProblem(
        'https://internal.shop/hooks',
        PRODUCTION,
        resolvesTo('93.184.215.14', '10.0.0.7'),
      ),
    ).toMatch(/resolves to 10\.0\.0\.7 is a private address/);
    expect(
      await endpointUrlProblem('https://gone.shop/hooks', PRODUCTION, () =>
        Promise.reject(new Error('ENOTFOUND')),
      ),
    ).toBe('gone.shop does not resolve');
    expect(
      await endpointUrlProblem(
        'https://shop.example/hooks',
        PRODUCTION,
        resolvesTo('93.184.215.14'),
      ),
    ).toBeNull();
  });

  it('lets loopback http through when private addresses are allowed (development, tests)', async () => {
    const rules = { requireHttps: false, allowPrivate: true };
    expect(await endpointUrlProblem('http://127.0.0.1:4000/hooks', rules)).toBeNull();
    expect(await endpointUrlProblem('ftp://127.0.0.1/hooks', rules)).toBe('must be an http(s) URL');
    expect(await endpointUrlProblem('not a url', rules)).toBe('must be an absolute http(s) URL');
  });
});
