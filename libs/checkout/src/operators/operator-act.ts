import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditOrigin } from '../http/request-origin';
import { Operator } from './operator';

/** An admin request being served: who acts, from where, and whether the trail has its row yet. */
export interface OperatorAct {
  operator: Operator;
  origin: AuditOrigin;
  /** Set once a row for the act was written in the change's own transaction. */
  recorded: boolean;
}

const acts = new AsyncLocalStorage<OperatorAct>();

/** The admin act the current code runs for, if any (none for the shop, the gateway, the worker). */
export function currentAct(): OperatorAct | undefined {
  return acts.getStore();
}

export function runAsAct<T>(act: OperatorAct, work: () => T): T {
  return acts.run(act, work);
}
