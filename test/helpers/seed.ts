// Kept for the specs that import it from here; the fixtures live in test/support/factories.ts.
export { Seed } from '../support/factories';
