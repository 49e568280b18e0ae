const [major, minor] = process.versions.node.split('.').map(Number);
/** Jest can require ES modules from CommonJS on Node 24.9 and later only. */
const requiresEsm = major > 24 || (major === 24 && minor >= 9);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // cookie 2 (under fastify's inject) is ES modules only: on older Node lines, which CI also
    // runs, it is compiled to CommonJS.
    ...(requiresEsm
      ? {}
      : {
          '/node_modules/cookie/.+\\.js$': [
            'ts-jest',
            {
              tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022' },
              isolatedModules: true,
            },
          ],
        }),
  },
  ...(requiresEsm
    ? {}
    : { transformIgnorePatterns: ['/node_modules/(?!cookie/)'] }),
  testTimeout: 30000,
};
