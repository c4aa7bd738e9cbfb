// Fault tests: the built service (dist/) as a child process against a private mariadbd and
// redis-server that the tests freeze, kill and restart (see test/faults/harness.ts). One file
// at a time: each starts its own servers and the machine is small.
module.exports = {
  rootDir: '..',
  testRegex: 'test/faults/.*\\.fault-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  testTimeout: 150000,
  maxWorkers: 1,
};
