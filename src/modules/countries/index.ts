import { defineModule, V1 } from '../deps.ts';
import { countriesRoutes } from './countries.routes.ts';
export { findCountry, COUNTRIES, type Country } from './countries.data.ts';

/** ISO 3166 countries, for addresses and phone numbers. */
export const countriesModule = defineModule({
  name: 'countries',
  build: () => ({ routes: [{ prefix: V1, plugin: countriesRoutes }] }),
});
