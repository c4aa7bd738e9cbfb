import type { ApiTransport } from './transport.js';

/** The SDK endpoints for abuse reports of a group or a user. */
export class ReportsApi {
  constructor(private readonly transport: ApiTransport) {}
}
