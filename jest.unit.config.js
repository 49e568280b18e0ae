/**
 * `npm run test:unit`: the `unit` project of jest.config.js alone, the suites that run in-process
 * without the build (paths and jest options can follow, as for `npm test`).
 */
const { projects } = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = projects.find(project => project.displayName === 'unit');
