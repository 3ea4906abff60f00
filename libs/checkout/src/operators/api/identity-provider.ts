import { Inject, Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { OidcConfig, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { Role } from '@app/domain';
import { SignedInPerson } from '../operator-sessions';

/** What the browser keeps between leaving for the provider and coming back (signed cookie). */
export interface SignInChecks {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  /** When the browser left for the provider (ms): the sign-in must come back within 10 minutes. */
  startedAt: number;
}

export const CALLBACK_PATH = '/admin/auth/callback';

/**
 * The company's identity provider, through openid-client: authorization code with PKCE, the
 * state, nonce, issuer, audience, signature and expiry of the ID token checked by the library.
 * Discovery happens at the first sign-in (and again after a failure), not at start.
 */
@Injectable()
export class IdentityProvider {
  private readonly logger = new Logger(IdentityProvider.name);
  private discovered: Promise<oidc.Configuration> | null = null;
  readonly settings: OidcConfig | null;

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {
    this.settings = config.oidc;
  }

  get redirectUri(): string {
    return `${this.config.publicBaseUrl}${CALLBACK_PATH}`;
  }

  /** Where to send the browser, and the checks to keep for its return. */
  async start(returnTo: string): Promise<{ url: string; checks: SignInChecks }> {
    const configuration = await this.configuration();
    const settings = this.required();
    const checks: SignInChecks = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      returnTo,
      startedAt: Date.now(),
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: settings.scopes,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    });
    return { url: url.href, checks };
  }

  /** The person the provider's answer names; throws (with the reason) on any failed check. */
  async finish(query: string, checks: SignInChecks): Promise<SignedInPerson> {
    try {
      return await this.exchange(query, checks);
    } catch (error) {
      throw new Error(failureOf(error));
    }
  }

  private async exchange(query: string, checks: SignInChecks): Promise<SignedInPerson> {
    const configuration = await this.configuration();
    const settings = this.required();
    const currentUrl = new URL(`${this.redirectUri}${query}`);
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('the provider sent no ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    // Providers often keep groups and email for userinfo rather than the ID token.
    if (claims[settings.rolesClaim] === undefined || claims.email === undefined) {
      const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
      claims = {
        ...userinfo,
        ...claims,
        [settings.rolesClaim]: claims[settings.rolesClaim] ?? userinfo[settings.rolesClaim],
      };
    }
    const groups = claims[settings.rolesClaim];
    const names = Array.isArray(groups)
      ? groups.filter((g): g is string => typeof g === 'string')
      : typeof groups === 'string'
        ? [groups]
        : [];
    return {
      subject: idClaims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      name: typeof claims.name === 'string' ? claims.name : null,
      roles: rolesOf(names, settings.roleMap),
    };
  }

  private required(): OidcConfig {
    if (!this.settings) throw new Error('sign-in is not configured (OIDC_ISSUER_URL)');
    return this.settings;
  }

  private configuration(): Promise<oidc.Configuration> {
    const settings = this.required();
    this.discovered ??= oidc
      .discovery(
        new URL(settings.issuerUrl),
        settings.clientId,
        settings.clientSecret,
        undefined,
        // A provider on plain http is for development and tests only (production needs https).
        {
          // The ID token's signature is checked against the provider's keys, not only trusted
          // for having come over the token endpoint's connection.
          execute: settings.issuerUrl.startsWith('http://')
            ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks]
            : [oidc.enableNonRepudiationChecks],
        },
      )
      .catch((error: Error) => {
        this.discovered = null;
        this.logger.error(`the identity provider could not be discovered: ${error.message}`);
        throw error;
      });
    return this.discovered;
  }
}

/** The roles a person's groups map to (OIDC_ROLE_MAP), each once, in the catalogue's order. */
export function rolesOf(groups: string[], roleMap: Map<string, Role[]>): Role[] {
  return [...new Set(groups.flatMap((group) => roleMap.get(group) ?? []))];
}

/**
 * The reason the library found, from the innermost error that says one (its outer errors say
 * only "invalid response encountered"), with the claim it is about; never a value it compared.
 */
function failureOf(error: unknown): string {
  const chain: Record<string, unknown>[] = [];
  for (let at: unknown = error; at && typeof at === 'object' && chain.length < 5;) {
    chain.push(at as Record<string, unknown>);
    at = (at as { cause?: unknown }).cause;
  }
  const last = (key: string) =>
    chain
      .map((link) => link[key])
      .filter((value): value is string => typeof value === 'string')
      .pop();
  const claim = last('claim');
  const described = last('error_description');
  const about = claim ? ` (the ID token's "${claim}" claim)` : '';
  return `${last('message') ?? String(error)}${about}${described ? `: ${described}` : ''}`;
}
