/**
 * A group's last activity as the conversations module knows it: the time of its conversation's
 * latest message (0 before the first). The operator console orders groups by it.
 */
export interface GroupActivity {
  /** The group's internal ID. */
  groupId: string;
  lastMessageAt: number;
}
