/** Unit tests live beside the code (*.spec.ts); e2e and integration suites in test/ (*.e2e-spec.ts). */
const swc = JSON.parse(require('fs').readFileSync(`${__dirname}/.swcrc`, 'utf8'));

const moduleNameMapper = {
  '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
  '^@app/([a-z-]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
const ESM_ONLY = '/node_modules/(openid-client|oauth4webapi|jose)/';
const shared = {
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }],
    // The OpenID client ships as ES modules only: jest (on Node 20) loads it as CommonJS.
    [`${ESM_ONLY}.+\\.js$`]: ['@swc/jest', { swcrc: false, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!${ESM_ONLY.slice('/node_modules/'.length)})`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
};

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30_000,
  // The global teardown still drops the run's database; an app that failed to close (reported by
  // test/support/service.ts) must not keep a CI run waiting after the summary.
  forceExit: true,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/apps', '<rootDir>/libs'],
      testMatch: ['**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      setupFilesAfterEnv: [
        '<rootDir>/test/support/secret-audit.setup.ts',
        '<rootDir>/test/support/api-contract.setup.ts',
        '<rootDir>/test/support/retry-once.setup.ts',
      ],
    },
  ],
};
