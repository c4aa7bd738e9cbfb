// Browser tests: the admin console, the demo and the Web SDK package (test/package) in headless
// Chromium (Debian's chromium, driven by playwright-core), against the real application on a
// database of its own.
module.exports = {
  rootDir: '..',
  testRegex: 'test/(browser|package)/.*\\.browser-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/browser/ensure-chromium.ts',
  testTimeout: 120000,
  maxWorkers: 1,
};
