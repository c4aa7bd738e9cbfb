/**
 * A group and a membership as other modules see them: plain records, never the TypeORM entities
 * (which stay inside the groups module). Reads hand out these shapes; other modules read through
 * GroupDirectory and change groups through the groups services.
 */
export type GroupRole = 'owner' | 'admin' | 'member';
/** A row is kept after leaving or removal: "is or was a member" matters for reports. */
export type GroupMemberStatus = 'active' | 'left' | 'removed';

export interface Group {
  id: string;
  /** The public group ID (spec `group_id`), not the row's ID. */
  publicId: string;
  name: string;
  avatar: string;
  introduction: string;
  ownerId: string;
  /** Set by the operator (admin console); a disabled group answers 1218. */
  disabled: boolean;
  dismissedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface GroupMember {
  id: string;
  groupId: string;
  userId: string;
  role: GroupRole;
  status: GroupMemberStatus;
  mutedUntil: number;
  joinedAt: number;
  leftAt: number | null;
}

/**
 * The groups table's columns and row shape for read models that join it in plain SQL (a group
 * conversation resolved for a viewer in one round trip). Such joins only read; every write is
 * the groups module's.
 */
export const GROUP_COLUMNS =
  'id, public_id, name, avatar, introduction, owner_id, disabled, dismissed_at, created_at, updated_at';

export interface GroupRow {
  id: string | number;
  public_id: string;
  name: string;
  avatar: string;
  introduction: string;
  owner_id: string | number;
  disabled: number | boolean;
  dismissed_at: string | number | null;
  created_at: string | number;
  updated_at: string | number;
}

/** A groups row read in plain SQL, its columns optionally prefixed (`g_id`, ...), as a Group. */
export function groupFromRow(source: GroupRow | Record<string, unknown>, p = ''): Group {
  const row = source as Record<string, string | number | boolean | null>;
  return {
    id: String(row[`${p}id`]),
    publicId: String(row[`${p}public_id`]),
    name: String(row[`${p}name`]),
    avatar: String(row[`${p}avatar`]),
    introduction: String(row[`${p}introduction`]),
    ownerId: String(row[`${p}owner_id`]),
    disabled: Boolean(Number(row[`${p}disabled`])),
    dismissedAt: row[`${p}dismissed_at`] === null ? null : Number(row[`${p}dismissed_at`]),
    createdAt: Number(row[`${p}created_at`]),
    updatedAt: Number(row[`${p}updated_at`]),
  };
}
