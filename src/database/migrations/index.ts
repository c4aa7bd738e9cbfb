import { InitialSchema1732200000000 } from './1732200000000-initial-schema';

/** Every migration, in order. Listed explicitly so the same list works from src/ and dist/. */
export const MIGRATIONS = [InitialSchema1732200000000];
