import type { EntityManager } from 'typeorm';

/**
 * Work a caller adds to a service's transaction, with the reply it is about to give: the server
 * API's idempotency record and audit row, written with the change or not at all.
 */
export type Alongside<R> = (manager: EntityManager, reply: R) => Promise<void>;
