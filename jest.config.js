// Two projects: fast unit tests of pure code, and e2e tests against real PostgreSQL and Redis.
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

/** Packages published as ES modules only that the server code imports. */
const ESM_ONLY = ['openid-client', 'oauth4webapi', 'jose'];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
    // openid-client and its dependencies ship ES modules only: compiled to CommonJS for Jest's
    // module system (Node itself loads them with require(esm) in the built apps).
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' }, diagnostics: false },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
};

module.exports = {
  // Applies to every project (Jest reads it only at the top level).
  testTimeout: 60_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/*/src/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/apps/*/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      setupFiles: ['<rootDir>/libs/testing/src/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/contract-guard.ts'],
    },
  ],
};
