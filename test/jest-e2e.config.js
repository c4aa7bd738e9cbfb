// e2e specs boot the real application on a real database (see helpers/test-app.ts).
module.exports = {
  rootDir: '..',
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // sdk/web is an ES module package: its relative imports name the built `.js` files.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
