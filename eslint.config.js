import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Modules talk to each other only through their index.ts.
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/modules/*/*.*', '!./*', '!../*'], message: 'Import another module through its index.ts' }] }],
    },
  },
  { files: ['bin/**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
