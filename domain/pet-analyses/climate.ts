/**
 * Season and climate from a country (ISO 3166-1 alpha-2): a small table of where a country lies,
 * used by the personalised care tips. It is a coarse, documented classification by the country's
 * main populated area, not a weather service:
 * - hemisphere: countries whose population lives mostly south of the equator are `south`
 *   (meteorological seasons shifted by six months); everything else `north`;
 * - climate band: `tropical` (mostly within the tropics, humid: no cold season, parasites all year),
 *   `arid` (hot desert or steppe), `cold` (subarctic or long snowy winters), else `temperate`.
 * The lists are checked against the ISO code list in the unit tests.
 */
export type Hemisphere = 'north' | 'south';
export type Season = 'winter' | 'spring' | 'summer' | 'autumn';
export type ClimateBand = 'tropical' | 'arid' | 'cold' | 'temperate';

export const SOUTHERN_COUNTRIES: readonly string[] = [
  'AR', 'AU', 'BO', 'BR', 'BW', 'CL', 'FJ', 'ID', 'LS', 'MG', 'MU', 'MW', 'MZ', 'NA', 'NZ', 'PE', 'PG', 'PY', 'SZ', 'TZ', 'UY', 'ZA',
  'ZM', 'ZW', 'AO', 'CD', 'RW', 'BI', 'SB', 'VU', 'WS', 'TO', 'NC', 'PF', 'RE', 'SC', 'KM', 'TL',
];

export const CLIMATE_BANDS: Readonly<Record<Exclude<ClimateBand, 'temperate'>, readonly string[]>> = {
  tropical: [
    'BR', 'CO', 'VE', 'EC', 'PE', 'BO', 'PY', 'PA', 'CR', 'NI', 'HN', 'SV', 'GT', 'BZ', 'CU', 'JM', 'HT', 'DO', 'PR', 'TT', 'BB', 'BS',
    'GY', 'SR', 'GF', 'NG', 'GH', 'CI', 'SN', 'GM', 'GN', 'SL', 'LR', 'TG', 'BJ', 'CM', 'GA', 'CG', 'CD', 'CF', 'UG', 'KE', 'TZ', 'RW',
    'BI', 'MZ', 'MW', 'ZM', 'AO', 'MG', 'MU', 'SC', 'KM', 'IN', 'BD', 'LK', 'MV', 'MM', 'TH', 'LA', 'KH', 'VN', 'MY', 'SG', 'ID', 'PH',
    'BN', 'TL', 'PG', 'SB', 'VU', 'FJ', 'WS', 'TO', 'PF', 'NC', 'RE',
  ],
  arid: [
    'SA', 'AE', 'QA', 'KW', 'BH', 'OM', 'YE', 'IQ', 'JO', 'EG', 'LY', 'DZ', 'TN', 'MA', 'MR', 'ML', 'NE', 'TD', 'SD', 'SO', 'DJ', 'ER',
    'NA', 'BW', 'IR', 'AF', 'PK', 'TM', 'UZ', 'KZ', 'MN', 'IL',
  ],
  cold: ['IS', 'NO', 'SE', 'FI', 'RU', 'CA', 'GL', 'EE', 'LV', 'LT', 'BY', 'KG', 'TJ', 'FO', 'SJ'],
};

export const hemisphereOf = (country: string | null): Hemisphere | null => {
  if (!country) return null;
  return SOUTHERN_COUNTRIES.includes(country.toUpperCase()) ? 'south' : 'north';
};

export const climateOf = (country: string | null): ClimateBand | null => {
  if (!country) return null;
  const code = country.toUpperCase();
  for (const band of ['tropical', 'arid', 'cold'] as const) if (CLIMATE_BANDS[band].includes(code)) return band;
  return 'temperate';
};

const NORTHERN_SEASONS: Season[] = ['winter', 'winter', 'spring', 'spring', 'spring', 'summer', 'summer', 'summer', 'autumn', 'autumn', 'autumn', 'winter'];
const OPPOSITE: Record<Season, Season> = { winter: 'summer', spring: 'autumn', summer: 'winter', autumn: 'spring' };

/** Meteorological season for a month (1–12) in a hemisphere (December–February is northern winter). */
export const seasonOf = (month: number, hemisphere: Hemisphere): Season => {
  const north = NORTHERN_SEASONS[(month - 1) % 12];
  return hemisphere === 'north' ? north : OPPOSITE[north];
};
