/**
 * A real OpenID provider for the tests (oidc-provider, the certified implementation, with its
 * development login: any login name and password sign in). Run in a child process by
 * identity-provider.ts, as oidc-provider is an ES module jest does not load.
 *
 * Accounts: the login name picks the person's groups (PEOPLE below; `alice.x` has alice's). A control route,
 * POST /_test/id-token {mode}, makes the provider's next token answers misbehave (an ID token for
 * another audience, expired, from another issuer, with another nonce, or signed by another key),
 * re-signed with the provider's own key, so that only the one thing named is wrong.
 */
import { createServer } from 'node:http';
import * as jose from 'jose';
import Provider from 'oidc-provider';

const PEOPLE: Record<string, string[]> = {
  alice: ['payments-admins'],
  fiona: ['finance'],
  frank: ['finance'],
  sam: ['support'],
  vic: ['staff'],
  dev: ['engineering'],
  audrey: ['audit'],
  nora: [],
};

type Mode = 'normal' | 'wrong-audience' | 'expired' | 'wrong-issuer' | 'wrong-nonce' | 'forged';

async function main(): Promise<void> {
  const port = Number(process.env.IDP_PORT);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const signing = {
    ...(await jose.exportJWK(privateKey)),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  };
  const forger = (await jose.generateKeyPair('RS256')).privateKey;
  let mode: Mode = 'normal';

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: process.env.IDP_CLIENT_ID as string,
        client_secret: process.env.IDP_CLIENT_SECRET as string,
        redirect_uris: [process.env.IDP_REDIRECT_URI as string],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signing] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: `${id}@example.test`,
        name: id[0].toUpperCase() + id.slice(1),
        // `alice.<anything>` is alice, with her groups: each test file signs its own people in.
        groups: PEOPLE[id.split('.')[0]] ?? [],
      }),
    }),
    // First-party console: the grant is given without a consent page.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  });

  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path !== '/token' || mode === 'normal' || !body?.id_token) return;
    const claims = jose.decodeJwt(body.id_token);
    const now = Math.floor(Date.now() / 1000);
    const changed: jose.JWTPayload = { ...claims };
    if (mode === 'wrong-audience') changed.aud = 'another-application';
    if (mode === 'expired') Object.assign(changed, { iat: now - 7200, exp: now - 3600 });
    if (mode === 'wrong-issuer') changed.iss = 'http://127.0.0.1:1/another-issuer';
    if (mode === 'wrong-nonce') changed.nonce = 'a-nonce-never-sent';
    const key = mode === 'forged' ? forger : privateKey;
    ctx.body = {
      ...body,
      id_token: await new jose.SignJWT(changed)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .sign(key),
    };
  });

  const callback = provider.callback();
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/_test/id-token') {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        mode = (JSON.parse(text) as { mode: Mode }).mode;
        response.writeHead(204).end();
      });
      return;
    }
    void callback(request, response);
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${issuer}\n`));
}

void main();
