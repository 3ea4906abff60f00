import helmet, { HelmetOptions } from 'helmet';
import type { FastifyReply } from 'fastify';

/**
 * helmet's headers for a page the service serves itself (the console, a payment link's page):
 * only same-origin scripts, styles and calls, no inline script, images of its own or data: URLs,
 * never framed, no referrer; a form may post to the page's own origin and to `formActions`
 * (where it sends the browser on, since browsers apply form-action to the redirect too).
 */
export function pageSecurity(formActions: readonly string[] = []): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'", ...formActions],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  };
}

/**
 * Sets the headers of `options` on an answer about to be sent (set on these answers only: no
 * other request runs a hook for them). helmet writes them on the outgoing message; Fastify sends
 * them with its own.
 */
export function securePage(options: HelmetOptions): (reply: FastifyReply) => Promise<void> {
  const headers = helmet(options);
  return (reply) =>
    new Promise<void>((resolve, reject) =>
      headers(reply.request.raw, reply.raw, (error?: unknown) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      ),
    );
}
