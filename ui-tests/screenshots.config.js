/**
 * `make screenshots`: the pictures of the README, taken from the same
 * servers as the UI tests, written to docs/images/.
 */
const config = require('./playwright.config');

module.exports = {
  ...config,
  testMatch: '**/*.shots.ts',
  reporter: [['list']]
};
