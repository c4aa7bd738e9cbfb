import type { ApiTransport } from './transport.js';

/** The SDK endpoints for the user's own profile, other users' profiles, lookup by username. */
export class UsersApi {
  constructor(private readonly transport: ApiTransport) {}
}
