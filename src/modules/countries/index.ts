export { countriesRoutes } from './countries.routes.ts';
export { findCountry, COUNTRIES, type Country } from './countries.data.ts';
