import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../../../test/harness.ts';
import type { Database } from '../db/database.ts';
import { newId } from '../ids.ts';
import { OWN_PARTITION_TYPES, searchPartitionOf } from './partitions.ts';
import { upsertSearchDocuments } from './writer.ts';

let database: Database;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => database.close());

describe(`search_documents partitions (${engine})`, () => {
  it('are the ones the writer writes into, each with the postings triggers', async () => {
    const { rows } = await sql<{ name: string; triggers: string[] }>`
      select c.relname as name, array(select t.tgname::text from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal
        order by t.tgname) as triggers
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'search_documents'::regclass order by c.relname`.execute(database.db);
    expect(rows.map((r) => r.name)).toEqual([...OWN_PARTITION_TYPES, 'other'].map((t) => `search_documents_${t}`).sort());
    for (const r of rows) expect([r.name, r.triggers]).toEqual([r.name, ['search_postings_delete', 'search_postings_insert', 'search_postings_update']]);
  });

  it('writes documents of several types into their partitions with one pending row each', async () => {
    const tenant = newId();
    await database.db.insertInto('tenants').values({ tenant_id: tenant, slug: `partitions-${tenant}`, name: 'Partitions' }).execute();
    const doc = (type: string, title: string) => ({ type, id: newId(), title, url: `/${type}`, updatedAt: new Date() });
    const docs = [doc('ticket', 'Printer jam'), doc('tag', 'printer'), doc('asset', 'Printer'), doc('ticket', 'Scanner')];
    await upsertSearchDocuments(database.db, tenant, docs);
    const written = await sql<{ partition: string; object_id: string }>`
      select d.tableoid::regclass::text as partition, d.object_id from search_documents d where d.tenant = ${tenant}::uuid`.execute(database.db);
    expect(written.rows.map((r) => [r.partition, r.object_id]).sort()).toEqual(docs.map((d) => [searchPartitionOf(d.type), d.id]).sort());
    expect(searchPartitionOf('tag')).toBe('search_documents_other');
    const pending = async () => (await sql<{ object_id: string; replaced: boolean }>`
      select object_id, old_head is not null as replaced from search_postings_pending where tenant = ${tenant}::uuid`.execute(database.db)).rows;
    expect((await pending()).map((p) => [p.object_id, p.replaced]).sort()).toEqual(docs.map((d) => [d.id, false]).sort());

    // Rewritten: one pending row more for the document whose content changed (with the version it replaced), none
    // for the one written again as it was.
    await upsertSearchDocuments(database.db, tenant, [{ ...docs[0]!, title: 'Printer fixed' }, docs[1]!]);
    expect((await pending()).filter((p) => p.replaced).map((p) => p.object_id)).toEqual([docs[0]!.id]);
  });
});
