// Browser tests: the admin console in headless Chromium (Debian's chromium, driven by
// playwright-core), against the real application on a database of its own.
module.exports = {
  rootDir: '..',
  testRegex: 'test/browser/.*\\.browser-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/browser/ensure-chromium.ts',
  testTimeout: 120000,
  maxWorkers: 1,
};
