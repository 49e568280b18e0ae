/**
 * `npm run test:unit`: the `unit` project of jest.config.js alone, the suites that run in-process
 * without the build (paths and jest options can follow, as for `npm test`).
 */
const config = require('./jest.config');

/** The options of the whole run, but the projects and the whole suite's coverage thresholds. */
const run = Object.fromEntries(
  Object.entries(config).filter(
    ([key]) => key !== 'projects' && key !== 'coverageThreshold'
  )
);

/** @type {import('jest').Config} */
module.exports = {
  ...run,
  ...config.projects.find(project => project.displayName === 'unit'),
  // Every core: these suites are CPU-bound, and jest's default keeps one for itself.
  maxWorkers: '100%',
};
