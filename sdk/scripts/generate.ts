/**
 * Regenerates the SDK's committed artefacts from the server's routes:
 *
 *   npx tsx sdk/scripts/generate.ts        (npm run sdk:generate)
 *
 * writes sdk/openapi.json (the document, pretty-printed in the order the server produces it) and
 * sdk/src/schema.d.ts (its types, by openapi-typescript). The drift test calls generateSdkFiles() and
 * compares, so the committed files can never silently fall behind the routes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { buildDocument, DOCUMENT_SERVER_URL } from './document.ts';

export const OPENAPI_JSON_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));
export const SCHEMA_TS_PATH = fileURLToPath(new URL('../src/schema.d.ts', import.meta.url));

const BANNER = `${COMMENT_HEADER.trimEnd()}\n// Regenerate with \`npm run sdk:generate\` (sdk/scripts/generate.ts).\n\n`;

export interface SdkFiles {
  openapiJson: string;
  schemaTs: string;
}

/**
 * The texts of both files for a document. `servers` is pinned to DOCUMENT_SERVER_URL: a running server
 * names its own PSA_PUBLIC_URL there, and the committed document must not depend on where it came from.
 */
export async function renderSdkFiles(document: Record<string, unknown>): Promise<SdkFiles> {
  const openapiJson = `${JSON.stringify({ ...document, servers: [{ url: DOCUMENT_SERVER_URL }] }, null, 2)}\n`;
  // The types come from the JSON text itself (a fresh copy: openapiTS resolves $refs in place).
  const ast = await openapiTS(JSON.parse(openapiJson) as OpenAPI3, { silent: true });
  return { openapiJson, schemaTs: BANNER + astToString(ast) };
}

export async function generateSdkFiles(): Promise<SdkFiles> {
  return renderSdkFiles(await buildDocument());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = await generateSdkFiles();
  writeFileSync(OPENAPI_JSON_PATH, files.openapiJson);
  writeFileSync(SCHEMA_TS_PATH, files.schemaTs);
  console.log(`wrote ${OPENAPI_JSON_PATH} and ${SCHEMA_TS_PATH}`);
}
