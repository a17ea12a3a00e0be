import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSdkFiles, OPENAPI_JSON_PATH, SCHEMA_TS_PATH } from '../scripts/generate.ts';

/** Where two texts first part (1-based line), quoted, so the failure is readable without a 10 MB diff. */
function firstDifference(committed: string, current: string): string {
  const a = committed.split('\n');
  const b = current.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '<end of file>')}, now ${JSON.stringify(b[at] ?? '<end of file>')}`;
}

describe('the committed SDK artefacts', () => {
  it('match what the routes generate now', { timeout: 180_000 }, async () => {
    const current = await generateSdkFiles();
    for (const [path, text] of [[OPENAPI_JSON_PATH, current.openapiJson], [SCHEMA_TS_PATH, current.schemaTs]] as const) {
      const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
      const stale = committed === text ? '' : `${path} is stale (${firstDifference(committed, text)}); run \`npm run sdk:generate\` and commit the result`;
      expect(stale).toBe('');
    }
  });
});
