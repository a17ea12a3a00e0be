/**
 * Import rules that ESLint's per-file checks cannot see (`npm run lint` runs both):
 * no import cycle anywhere, a platform that knows no area and no configuration, and areas that never
 * reach back into the composition root. Type-only imports count: they couple code just the same.
 */
const COMPOSITION_ROOT = '^src/(app|main|worker|cli|modules|config|background-tasks|server)\\.ts$';

export default {
  forbidden: [
    { name: 'no-cycle', severity: 'error', comment: 'Import cycles make load order matter and areas inseparable.', from: {}, to: { circular: true } },
    {
      name: 'platform-knows-no-area',
      severity: 'error',
      comment: 'The platform provides mechanisms; areas plug into them through their manifests.',
      from: { path: '^src/platform/', pathNot: '\\.test\\.ts$' },
      to: { path: ['^src/modules/', COMPOSITION_ROOT] },
    },
    {
      name: 'areas-never-import-the-root',
      severity: 'error',
      comment: 'Settings and services reach an area through its build(deps); only config types may be named.',
      from: { path: '^src/modules/', pathNot: '\\.test\\.ts$' },
      to: { path: COMPOSITION_ROOT, pathNot: '^src/config\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
