import type { ApiTransport } from './transport.js';

/** The SDK endpoints for groups: create, profile, members, roles, invitations, join, leave, dismiss. */
export class GroupsApi {
  constructor(private readonly transport: ApiTransport) {}
}
