import { holdRequestContext, requestContextStorage } from '@app/common';
import type { AuditOrigin } from '../http/request-origin';
import { Operator } from './operator';

/** An admin request being served: who acts, from where, and whether the trail has its row yet. */
export interface OperatorAct {
  operator: Operator;
  origin: AuditOrigin;
  /** Set once a row for the act was written in the change's own transaction. */
  recorded: boolean;
}

const acts = requestContextStorage<OperatorAct>();

/** The admin act the current code runs for, if any (none for the shop, the gateway, the worker). */
export function currentAct(): OperatorAct | undefined {
  return acts.getStore();
}

/** Runs the act's work with the act readable (currentAct) until the work is done. */
export async function runAsAct<T>(act: OperatorAct, work: () => Promise<T>): Promise<T> {
  // Held to the end of the work: a request whose caller went away still has its act.
  const release = holdRequestContext();
  try {
    return await acts.run(act, work);
  } finally {
    release();
  }
}
