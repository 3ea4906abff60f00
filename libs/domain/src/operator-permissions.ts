/**
 * What an operator may do. A person holds the permissions of their roles (mapped from the
 * identity provider's groups); a scoped API key holds its scopes, which are the same names; a
 * bootstrap key from ADMIN_API_KEYS is an admin, one from SHOP_API_KEYS a shop.
 */
export const PERMISSIONS = [
  'checkout:write',
  'orders:read',
  'admin:read',
  'operations:write',
  'refunds:request',
  'refunds:approve',
  'finance:export',
  'webhooks:manage',
  'api_keys:manage',
  'audit:read',
  'payment_links:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PERMISSION_MEANINGS: Record<Permission, string> = {
  'checkout:write': 'start checkouts and new attempts (the shop)',
  'orders:read': "read the shop's orders and their status (the shop)",
  'admin:read': 'read orders, refunds, notifications, webhooks, the overview and reports',
  'operations:write': 'sync, replay notifications, dead letters, reconciliation, cancel orders',
  'refunds:request': 'ask for a refund (above the threshold it waits for an approver)',
  'refunds:approve': "approve or decline another person's refund request",
  'finance:export': 'download payment exports and daily reports',
  'webhooks:manage': 'create, change, test and replay webhook endpoints',
  'api_keys:manage': 'create, roll and revoke scoped API keys (only with scopes one holds)',
  'audit:read': 'read and verify the audit trail',
  'payment_links:manage': 'create, list, change and deactivate payment links',
};

export const ROLES = [
  'viewer',
  'operator',
  'refund_requester',
  'refund_approver',
  'developer',
  'auditor',
  'admin',
] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  viewer: ['admin:read'],
  operator: ['admin:read', 'operations:write', 'payment_links:manage'],
  refund_requester: ['admin:read', 'refunds:request'],
  refund_approver: ['admin:read', 'refunds:approve', 'finance:export'],
  developer: ['admin:read', 'webhooks:manage', 'api_keys:manage'],
  auditor: ['audit:read'],
  // Everything, the shop's scopes included (so an admin can make the shop's keys).
  admin: PERMISSIONS,
};

export function isRole(name: string): name is Role {
  return (ROLES as readonly string[]).includes(name);
}

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

export function permissionsOfRoles(roles: readonly Role[]): Set<Permission> {
  return new Set(roles.flatMap((role) => ROLE_PERMISSIONS[role]));
}
