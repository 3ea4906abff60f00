import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import {
  isPermission,
  isRole,
  Permission,
  PERMISSION_MEANINGS,
  PERMISSIONS,
  ROLE_PERMISSIONS,
} from '../../../libs/domain/src/operator-permissions';
import type { Operator, WhoAmI } from './admin-api';

/** The permissions and roles as the server defines them (one list, pure TypeScript). */
export { isPermission, isRole, PERMISSION_MEANINGS, PERMISSIONS, ROLE_PERMISSIONS };
export type { Permission };

/** The shop's own scopes: a key holding only these is no admin key. */
const SHOP_PERMISSIONS: readonly string[] = ['checkout:write', 'orders:read'];

/** Whether the operator may use the console at all: they hold some admin permission. */
export const isConsoleOperator = (operator: Operator): boolean =>
  operator.permissions.some((permission) => !SHOP_PERMISSIONS.includes(permission));

/** The signed-in operator, for every page: what they may do decides what a page offers. */
export const SignedIn = createContext<WhoAmI | null>(null);

export const useSignedIn = (): WhoAmI | null => useContext(SignedIn);

/** Whether the signed-in operator holds a permission. The server checks each call anyway. */
export function useCan(): (permission: Permission) => boolean {
  const who = useSignedIn();
  return (permission) => who?.operator.permissions.includes(permission) ?? false;
}

/** How the server names an operator in a refund's requested_by or a key's created_by. */
export function operatorLabel(operator: Operator): string {
  if (operator.kind === 'person') return operator.email ?? operator.name ?? operator.id;
  if (operator.kind === 'api_key') return `key:${operator.name}`;
  return operator.name;
}

/** What kind of operator, as people read it. */
export const KIND_NAMES: Record<Operator['kind'], string> = {
  person: 'a person, with the company account',
  api_key: 'a scoped API key',
  bootstrap_key: "an admin key of the service's environment",
};

/** The roles a header shows: a person's roles, else what kind of key. */
export function rolesText(operator: Operator): string {
  if (operator.kind === 'api_key') return 'scoped key';
  return operator.roles.length > 0 ? operator.roles.join(', ') : 'no role';
}

/** Where an action is left out: what it would need, which the operator does not hold. */
export function Needs({ what, permission }: { what: string; permission: Permission }) {
  return (
    <p class="hint needs">
      {what} needs the permission <code>{permission}</code>, which you do not hold.
    </p>
  );
}
