// Unit specs live beside the code they test.
module.exports = {
  rootDir: 'src',
  testRegex: '.*\\.spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../tsconfig.spec.json' }] },
  // src/contract imports with `.js` (it is compiled as ES modules for the Web SDK too).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  // Some unit specs start a server (an S3 fake, a silent Redis): jest's 5 s default does not hold
  // on a loaded 2-core machine. Speed is the benchmark's business, not the tests'.
  testTimeout: 30000,
};
