/**
 * `npm run test:unit`: the `unit` project of jest.config.js alone, the suites that run in-process
 * without the build (paths and jest options can follow, as for `npm test`).
 */
const { projects, ...run } = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...run,
  ...projects.find(project => project.displayName === 'unit'),
  // Every core: these suites are CPU-bound, and jest's default keeps one for itself.
  maxWorkers: '100%',
};
