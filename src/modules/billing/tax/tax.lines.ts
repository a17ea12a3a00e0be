import type { Executor } from '../../../platform/db/executor.ts';
import { unprocessable, validation } from '../../../platform/http/errors.ts';
import { findClientTaxSettings, taxRatesById } from './tax.repo.ts';
import { lineAmountCents, lineTaxCents } from './tax.math.ts';

export interface UnpricedLine {
  quantity_units: number;
  unit_price_cents: number;
  /** undefined: the client's default rate; null: untaxed. */
  tax_rate_id?: string | null;
}

export interface PricedLine {
  tax_rate_id: string | null;
  tax_percentage_thousandths: number;
  /** Net: quantity × unit price, half-even to the cent. */
  total_cents: number;
  tax_cents: number;
}

export interface ClientTax {
  is_tax_exempt: boolean;
  default_tax_rate_id: string | null;
}

/** A client's exemption and default rate (no settings: taxable, no default). */
export async function clientTaxOf(db: Executor, tenant: string, clientId: string): Promise<ClientTax> {
  const s = await findClientTaxSettings(db, tenant, clientId);
  return { is_tax_exempt: s?.is_tax_exempt ?? false, default_tax_rate_id: s?.default_tax_rate_id ?? null };
}

/**
 * Prices lines the way invoices, quotes and the tax calculator all do: the rate a line names (or the
 * client's default when it names none), zero for an exempt client, then the exact per-line amount and tax.
 * A rate not in the tenant is a 400 at `<path>.<i>.tax_rate_id`; an inactive one a 422. The rate's
 * percentage is returned so the line keeps the figure it was priced at if the rate later changes.
 */
export async function priceLines(db: Executor, tenant: string, client: ClientTax | undefined, lines: readonly UnpricedLine[], path: string): Promise<PricedLine[]> {
  const rateIdOf = (l: UnpricedLine) => (l.tax_rate_id === undefined ? (client?.default_tax_rate_id ?? null) : l.tax_rate_id);
  const named = [...new Set(lines.map(rateIdOf).filter((x): x is string => x !== null))];
  const rates = await taxRatesById(db, tenant, named);
  return lines.map((l, i) => {
    const rateId = rateIdOf(l);
    let thousandths = 0;
    if (rateId !== null) {
      const rate = rates.get(rateId);
      if (!rate) throw validation(`${path}.${i}.tax_rate_id`, `no tax rate '${rateId}' in this tenant`);
      if (!rate.is_active) throw unprocessable(`Tax rate '${rate.name}' on line ${i} is inactive; activate it or choose another`, { tax_rate_id: rateId });
      thousandths = rate.percentage_thousandths;
    }
    if (client?.is_tax_exempt) thousandths = 0;
    const total = lineAmountCents(l.quantity_units, l.unit_price_cents);
    return { tax_rate_id: rateId, tax_percentage_thousandths: thousandths, total_cents: total, tax_cents: lineTaxCents(total, thousandths) };
  });
}
