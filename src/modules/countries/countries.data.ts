import { countries as source } from 'countries-list';

export interface Country {
  code: string;
  name: string;
  phone_code: string;
}

/** ISO 3166-1 alpha-2 countries from the maintained `countries-list` package, sorted by name. */
export const COUNTRIES: readonly Country[] = Object.entries(source)
  .map(([code, c]) => ({ code, name: c.name, phone_code: c.phone.length > 0 ? `+${c.phone[0]}` : '' }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

const BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c]));

export const findCountry = (code: string): Country | undefined => BY_CODE.get(code.toUpperCase());
