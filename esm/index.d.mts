export * from '../dist/src/index.js';
