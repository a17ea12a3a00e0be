#!/usr/bin/env node
/**
 * npm start / npm run worker: runs dist/<entry>.js, the compiled JavaScript (no TypeScript loader in the
 * process: faster to start, smaller). When dist/ is missing or older than src/, it is built first; if that
 * is impossible (no TypeScript installed, or tsc fails), the sources run through tsx instead, with a warning.
 * npm run dev runs the sources through tsx directly. The npm scripts start it with --max-semi-space-size=8
 * --heap-growing-percent=50 (V8 flags must be given when the process starts): see the README.
 */
import module from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, buildProblem, DIST } from './build.js';

const entry = process.argv[2];
if (entry !== 'main' && entry !== 'worker') {
  console.error('usage: node bin/start.js main|worker');
  process.exit(2);
}

const problem = buildProblem();
let compiled = !problem;
if (problem) {
  console.error(`dist/ is ${problem}; compiling src/ first (tsc -p tsconfig.build.json) …`);
  compiled = await build();
  if (!compiled) console.error(`warning: running src/${entry}.ts through tsx instead (slower to start, more memory); fix the build, then npm start again`);
}
if (compiled) {
  // Node ≥ 22.1 keeps V8's compiled code of the bundle between starts (parsing and compiling it is a tenth of a
  // start's CPU). dist/ is rebuilt from scratch, so the cache never outlives the code; where dist/ is read-only
  // the call reports a failure and the start goes on without a cache. Node 20 has no such API.
  module.enableCompileCache?.(join(DIST, '.compile-cache'));
  await import(pathToFileURL(join(DIST, `${entry}.js`)).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(`../src/${entry}.ts`);
}
