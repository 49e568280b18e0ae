// The OpenTelemetry JS formatting rules.
module.exports = {
  arrowParens: 'avoid',
  printWidth: 80,
  trailingComma: 'es5',
  tabWidth: 2,
  semi: true,
  singleQuote: true,
};
