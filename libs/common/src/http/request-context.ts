import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { storage as requestLoggers } from 'nestjs-pino/storage';
import { withHooksExceptOnHotRoutes } from './hot-routes';

/**
 * What a request carries for the code it calls without passing it (its logger, an operator's act)
 * lives in AsyncLocalStorage. On Node 20 one that was ever used makes every promise of the process
 * pay a hook (the store is copied to each new promise), whichever request the promise serves: one
 * health probe or operator request would have every checkout and notification after it pay.
 * So these storages are enabled only while something that may read them is in flight (a request
 * of a route that is not hot, an operator's act): the first use enables one, and when the last
 * hold is released they are disabled again.
 */
const storages = new Set<AsyncLocalStorage<unknown>>([requestLoggers]);
let holds = 0;

/** A request context storage, disabled with the others whenever nothing holds them. */
export function requestContextStorage<T>(): AsyncLocalStorage<T> {
  const storage = new AsyncLocalStorage<T>();
  storages.add(storage as AsyncLocalStorage<unknown>);
  return storage;
}

/**
 * Keeps the request context storages enabled until the returned release is called (once; a second
 * call does nothing). Take it before the first store is set, release it once nothing of the work
 * will read one again.
 */
export function holdRequestContext(): () => void {
  holds += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds -= 1;
    if (holds === 0) for (const storage of storages) storage.disable();
  };
}

/** How many holds are taken now (tests look). */
export const requestContextHolds = (): number => holds;

/** Where an answer keeps the release of its request's hold. */
const HOLD = Symbol('request context hold');
type HoldingAnswer = ServerResponse & { [HOLD]?: () => void };

/**
 * Every request of a route that is not hot holds the context until its answer is closed (sent,
 * or its connection cut): its Nest middleware binds the request's logger, and it may be an
 * operator's act. Register before Nest's middleware hook, so the hold comes before the store.
 */
export async function holdRequestContextWhileServing(fastify: FastifyInstance): Promise<void> {
  await withHooksExceptOnHotRoutes(fastify, null, ['onRequest'], async () => {
    fastify.addHook('onRequest', (_request, reply, done) => {
      const release = holdRequestContext();
      (reply.raw as HoldingAnswer)[HOLD] = release;
      reply.raw.once('close', release);
      done();
    });
  });
}

/**
 * A route whose answer outlives its handler (a live stream, written by a feed) releases its
 * request's hold once the handler is done: the stream may stay open for minutes, and nothing of
 * the request reads the context after it, while every payment meanwhile would pay for it.
 */
export function releaseRequestContext(answer: ServerResponse): void {
  (answer as HoldingAnswer)[HOLD]?.();
}
