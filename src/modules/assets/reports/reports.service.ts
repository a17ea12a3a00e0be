import { iso } from '../../../platform/time.ts';
import { sql, type Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { exportStream, type ExportStream } from '../../../platform/http/export-stream.ts';
import { likePattern } from '../../../platform/db/like.ts';
import { visibleTicketsCondition } from '../../tickets/index.ts';
import { toAsset } from '../assets.mapper.ts';
import { allAssets, filteredAssets, type AssetViewRow } from '../assets.repo.ts';
import { ASSET_STATUSES, WARRANTY_STATUSES, type Asset } from '../assets.schemas.ts';
import { assetFilterOf, requireAssetView } from '../assets.service.ts';
import { addDays, todayUtc, warrantyDaysRemaining, warrantyStatusOf, WARRANTY_EXPIRING_SOON_DAYS } from '../assets.warranty.ts';
import { maintenanceOutlook } from '../maintenance/maintenance.repo.ts';
import type { AssetStats, AssetSummary, ExportQuery, SearchAssetsQuery, StatsQuery } from './reports.schemas.ts';

const CSV_COLUMNS: readonly (keyof Asset)[] = [
  'asset_id', 'asset_tag', 'name', 'asset_type', 'status', 'client_id', 'client_name', 'serial_number', 'location', 'manufacturer', 'model',
  'purchase_date', 'warranty_end_date', 'warranty_status', 'attributes', 'created_at', 'updated_at',
];
const MAX_CLIENTS = 100;

export function createReportsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    async summary(actor: Actor, assetId: string): Promise<AssetSummary> {
      const asset = await requireAssetView(db, actor, assetId);
      const today = todayUtc();
      const visible = visibleTicketsCondition(actor);
      let tickets = db
        .selectFrom('asset_ticket_links as l')
        .innerJoin('tickets as t', (j) => j.onRef('t.tenant', '=', 'l.tenant').onRef('t.ticket_id', '=', 'l.ticket_id'))
        .innerJoin('ticket_statuses as s', (j) => j.onRef('s.tenant', '=', 't.tenant').onRef('s.status_id', '=', 't.status_id'))
        .where('l.tenant', '=', actor.tenant)
        .where('l.asset_id', '=', assetId)
        .where('s.is_closed', '=', false);
      if (visible !== undefined) tickets = tickets.where(visible);
      const [open, link, outlook, last] = await Promise.all([
        tickets.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        db.selectFrom('asset_rmm_links').select('agent_status').where('tenant', '=', actor.tenant).where('asset_id', '=', assetId).executeTakeFirst(),
        maintenanceOutlook(db, actor.tenant, assetId, today),
        db.selectFrom('asset_history').select((eb) => eb.fn.max('performed_at').as('at')).where('tenant', '=', actor.tenant).where('asset_id', '=', assetId).where('entry_type', '=', 'maintenance').executeTakeFirst(),
      ]);
      const agent = link?.agent_status ?? null;
      const reasons: string[] = [];
      let health: AssetSummary['health_status'] = 'unknown';
      if (agent === 'offline') {
        health = 'critical';
        reasons.push('RMM agent is offline');
      } else {
        if (agent === 'overdue') reasons.push('RMM agent has not checked in on time');
        if (outlook.overdue > 0) reasons.push(`${outlook.overdue} maintenance schedule(s) overdue`);
        if (asset.status === 'in_repair') reasons.push('Asset is in repair');
        if (reasons.length > 0) health = 'warning';
        else if (agent === 'online') {
          health = 'healthy';
          reasons.push('RMM agent is online');
        } else reasons.push(agent === null ? 'No RMM agent linked' : 'RMM agent status is unknown');
      }
      const lastAt = last?.at ?? null;
      return {
        asset_id: assetId,
        health_status: health,
        health_reasons: reasons,
        agent_status: agent,
        open_tickets_count: Number(open.n),
        warranty_end_date: asset.warranty_end_date,
        warranty_status: warrantyStatusOf(asset.warranty_end_date, today),
        warranty_days_remaining: warrantyDaysRemaining(asset.warranty_end_date, today),
        overdue_maintenance_count: outlook.overdue,
        next_maintenance_due: outlook.nextDue,
        last_maintenance_at: lastAt === null ? null : iso(lastAt as Date | string),
      };
    },

    /**
     * The whole filtered list, streamed a batch at a time (never held in memory). The first batch is
     * read before the response starts, so a query that fails (bad input the database refuses) is still
     * an ordinary error response rather than a cut-off download.
     */
    async export(actor: Actor, query: ExportQuery): Promise<ExportStream> {
      const filter = assetFilterOf(actor, query);
      const today = todayUtc();
      const batches = allAssets(db, actor.tenant, { ...filter, today }, { sort: query.sort, order: query.order });
      const first = await batches.next();
      async function* rows(): AsyncGenerator<AssetViewRow> {
        if (first.done) return;
        yield* first.value;
        for await (const batch of batches) yield* batch;
      }
      return exportStream(query.format ?? 'csv', CSV_COLUMNS, (async function* () {
        for await (const r of rows()) yield toAsset(r, today);
      })());
    },

    async search(actor: Actor, query: SearchAssetsQuery): Promise<Asset[]> {
      const term = query.query.trim();
      const filter = assetFilterOf(actor, { ...query, search: term });
      const prefix = `${likePattern(term).slice(1)}`;
      const rows = await filteredAssets(db, actor.tenant, filter)
        .selectAll('a')
        .select('c.client_name')
        .orderBy(sql`case when lower(a.asset_tag) = lower(${term}) then 0 when a.asset_tag ilike ${prefix} then 1 when a.name ilike ${prefix} then 2 else 3 end`)
        .orderBy(sql`lower(a.name)`)
        .orderBy('a.asset_id')
        .limit(query.limit ?? 25)
        .execute();
      return rows.map((r) => toAsset(r));
    },

    async stats(actor: Actor, query: StatsQuery): Promise<AssetStats> {
      const today = todayUtc();
      const soon = addDays(today, WARRANTY_EXPIRING_SOON_DAYS);
      const filter = { ...assetFilterOf(actor, query), today };
      const warranty = sql<string>`case when a.warranty_end_date is null then 'none' when a.warranty_end_date < ${today} then 'expired' when a.warranty_end_date <= ${soon} then 'expiring_soon' else 'active' end`;
      const [groups, clients, overdue] = await Promise.all([
        filteredAssets(db, actor.tenant, filter)
          .select((eb) => ['a.status', 'a.asset_type', warranty.as('warranty'), eb.fn.countAll<number>().as('n')])
          .groupBy(['a.status', 'a.asset_type', sql`3`]) // by position: a parameterised expression never equals its own repeat
          .execute(),
        filteredAssets(db, actor.tenant, filter)
          .select((eb) => ['a.client_id', 'c.client_name', eb.fn.countAll<number>().as('n')])
          .groupBy(['a.client_id', 'c.client_name'])
          .orderBy(sql`count(*)`, 'desc')
          .orderBy(sql`lower(c.client_name)`)
          .limit(MAX_CLIENTS + 1)
          .execute(),
        filteredAssets(db, actor.tenant, filter)
          .where((eb) =>
            eb.exists(
              eb.selectFrom('asset_maintenance_schedules as s')
                .select(sql`1`.as('x'))
                .whereRef('s.tenant', '=', 'a.tenant')
                .whereRef('s.asset_id', '=', 'a.asset_id')
                .where('s.is_active', '=', true)
                .where('s.next_due', '<', today),
            ),
          )
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      const stats: AssetStats = {
        total_assets: 0,
        assets_by_status: Object.fromEntries(ASSET_STATUSES.map((s) => [s, 0])),
        assets_by_type: {},
        assets_by_warranty_status: Object.fromEntries(WARRANTY_STATUSES.map((s) => [s, 0])),
        assets_by_client: clients.slice(0, MAX_CLIENTS).map((c) => ({ client_id: c.client_id, client_name: c.client_name, count: Number(c.n) })),
        clients_truncated: clients.length > MAX_CLIENTS,
        maintenance_overdue_assets: Number(overdue.n),
        warranty_expiring_soon_days: WARRANTY_EXPIRING_SOON_DAYS,
      };
      for (const g of groups) {
        const n = Number(g.n);
        stats.total_assets += n;
        stats.assets_by_status[g.status] = (stats.assets_by_status[g.status] ?? 0) + n;
        stats.assets_by_type[g.asset_type] = (stats.assets_by_type[g.asset_type] ?? 0) + n;
        stats.assets_by_warranty_status[g.warranty] = (stats.assets_by_warranty_status[g.warranty] ?? 0) + n;
      }
      return stats;
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
