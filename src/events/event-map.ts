// Moved to src/contract/events.ts; this re-export goes once every importer names the contract.
export * from '../contract/events';
