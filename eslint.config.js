// npm run lint: ESLint's recommended rules and typescript-eslint's type-checked ones, on the
// TypeScript of src/ and test/ (typed by tsconfig.test.json) and on the plain JavaScript of
// bin/, scripts/, bench/ and the console (no types: the rules that need them are off there).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'src/gen/', 'completions/', 'man/'] },
  js.configs.recommended,
  {
    rules: {
      // pctl matches control characters and ANSI escapes on purpose: it strips them from what
      // it prints, and tests look for them in what it printed.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Async functions that implement an async contract (a page iterator, a prompter, a
      // sleep) without awaiting anything are correct; unhandled promises are what
      // no-floating-promises catches.
      '@typescript-eslint/require-await': 'off',
      // `_` marks a parameter a callback's signature makes us take and not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // zod's `z` is a namespace object: imported by name, it takes every part of zod into the
      // bundle (755 KB, its locales included); as `import * as z`, esbuild keeps what is used
      // (~200 KB), and every command that validates a response loads that much less.
      'no-restricted-syntax': ['error', { selector: "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z']", message: "import * as z from 'zod' (the named z bundles all of zod)" }],
    },
  },
  {
    // Tests read the API's JSON as it comes (any) and assert its shape with ava: the no-unsafe-*
    // rules, which keep untyped values out of typed code, would ask for a cast per assertion.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['console/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
