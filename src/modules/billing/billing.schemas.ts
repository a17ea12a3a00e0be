import { Type } from 'typebox';
import { BILLING_CYCLES } from '../clients/index.ts';

/** How often a contract or line is billed: the client billing-cycle values. */
export const BillingFrequency = Type.Enum([...BILLING_CYCLES], { description: 'weekly, bi-weekly, monthly, quarterly, semi-annually or annually' });

