import type { ApiTransport } from './transport.js';

/** The SDK endpoints for calls: start, ringing, accept, reject, cancel, hang up, credentials, get, active. */
export class CallsApi {
  constructor(private readonly transport: ApiTransport) {}
}
