// Kept for the specs that import it from here; the fixtures live in test/helpers/factories.ts.
export { Seed } from './factories';
