import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// A module is entered only through its index.ts (ARCHITECTURE.md): each regex catches a deep import
// into another module as written from one location (outside modules, or a file `depth` folders below
// src/modules/<area>/, whose way out to another area is depth + 1 steps up).
const onlyThroughIndex = (regex) => ['error', { patterns: [{ regex, message: 'Import another module through its index.ts' }] }];
const areaFiles = (depth) => ({
  files: [`src/modules/*/${'*/'.repeat(depth)}*.ts`],
  rules: { 'no-restricted-imports': onlyThroughIndex(`^${'\\.\\./'.repeat(depth + 1)}(?!\\.\\.)[^/]+/(?!index\\.ts$).+`) },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/', 'sdk/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['src/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'], rules: { 'no-restricted-imports': onlyThroughIndex('modules/[^/]+/(?!index\\.ts$).+') } },
  ...[0, 1, 2, 3].map(areaFiles),
  // bin/ is plain JavaScript run by node.
  { files: ['bin/**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
  {
    files: ['src/platform/**/*.ts'],
    ignores: ['src/platform/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/modules/**'], message: 'The platform never depends on a domain module' }] }] },
  },
);
