#!/usr/bin/env node
// The `psa` command: runs the compiled CLI (dist/cli.js) when the build is current, otherwise the TypeScript
// sources through tsx, so it works without a build step (npm run build or npm install makes dist/).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildProblem, DIST } from './build.js';

if (buildProblem()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
} else {
  await import(pathToFileURL(join(DIST, 'cli.js')).href);
}
