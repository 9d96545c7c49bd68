// npm run lint: rules that catch bugs this codebase can have, with the types (typescript-eslint's project service).
// Layering, family boundaries and import cycles are checked by tests (tests/protocol/layers.test.ts,
// family-imports.test.ts), which know type-only imports and keep baselines; formatting is not a lint concern.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/**', 'bench/results/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits loses its error and its ordering (a write after the reply, an unhandled rejection).
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a void one is expected (an event handler, forEach): its rejection goes nowhere.
      '@typescript-eslint/no-misused-promises': 'error',
      // Awaiting what is not a promise hides a missing call or a wrong type.
      '@typescript-eslint/await-thenable': 'error',
      // Dead code: an unused import, variable or parameter; prefix with _ to keep one on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // A cast to the type a value already has outlives the reason it was written and hides the next type change.
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    files: ['bin/*.js'],
    rules: { 'no-unused-vars': 'error' },
  },
);
