export const ADMIN_ROLES = ['viewer', 'moderator', 'owner'] as const;
/** In increasing power: each role may do everything the ones before it may. */
export type AdminRole = (typeof ADMIN_ROLES)[number];

export function roleAtLeast(role: AdminRole, needed: AdminRole): boolean {
  return ADMIN_ROLES.indexOf(role) >= ADMIN_ROLES.indexOf(needed);
}
