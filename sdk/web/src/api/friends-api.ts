import type { ApiTransport } from './transport.js';

/** The SDK endpoints for friends, friend requests and blocks. */
export class FriendsApi {
  constructor(private readonly transport: ApiTransport) {}
}
