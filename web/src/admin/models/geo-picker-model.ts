/**
 * The event form's country picker without the DOM: where the event may be watched (anywhere, only in
 * the chosen countries, or everywhere except them), the countries chosen, and the search over the
 * country table the API checks codes against (functions/domain/events/countries.ts, bundled as is).
 */
import { COUNTRIES } from '../../../../functions/domain/events/countries';
import type { GeoRule } from '../../../../functions/domain/records';

export type GeoMode = 'anywhere' | 'allow' | 'deny';

export interface GeoPickerState {
  mode: GeoMode;
  /** Codes, sorted; kept when the mode goes to anywhere and back, so a slip of the radio loses nothing. */
  chosen: string[];
}

export interface Country {
  code: string;
  name: string;
}

/** Every country, by English name (what the search lists). */
export const COUNTRY_LIST: readonly Country[] = Object.entries(COUNTRIES)
  .map(([code, name]) => ({ code, name }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

export function geoPickerState(rule: GeoRule | undefined): GeoPickerState {
  if (!rule) return { mode: 'anywhere', chosen: [] };
  return 'allow' in rule ? { mode: 'allow', chosen: [...rule.allow].sort() } : { mode: 'deny', chosen: [...rule.deny].sort() };
}

/** Accents and case aside: "cote" finds Côte d'Ivoire, "turk" Türkiye. */
const folded = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/**
 * Countries matching `query` not chosen yet, at most `limit`: an exact code first (a typed "GB" is the
 * United Kingdom), then names that start with it, then names that contain it.
 */
export function matchingCountries(query: string, chosen: readonly string[], limit = 8): Country[] {
  const q = folded(query.trim());
  if (!q) return [];
  const open = COUNTRY_LIST.filter((country) => !chosen.includes(country.code));
  const byCode = open.filter((country) => country.code.toLowerCase() === q);
  const starts = open.filter((country) => !byCode.includes(country) && folded(country.name).startsWith(q));
  const contains = open.filter((country) => !byCode.includes(country) && !starts.includes(country) && folded(country.name).includes(q));
  return [...byCode, ...starts, ...contains].slice(0, limit);
}

export function chooseCountry(state: GeoPickerState, code: string): GeoPickerState {
  if (state.chosen.includes(code) || !(code in COUNTRIES)) return state;
  return { ...state, chosen: [...state.chosen, code].sort() };
}

export function dropCountry(state: GeoPickerState, code: string): GeoPickerState {
  return { ...state, chosen: state.chosen.filter((chosen) => chosen !== code) };
}

export function setGeoMode(state: GeoPickerState, mode: GeoMode): GeoPickerState {
  return { ...state, mode };
}

/** The API's `geo`; `empty` when a list is asked for but no country chosen (the form says so before sending). */
export function geoRuleOf(state: GeoPickerState): GeoRule | 'empty' {
  if (state.mode === 'anywhere') return null;
  if (state.chosen.length === 0) return 'empty';
  return state.mode === 'allow' ? { allow: [...state.chosen] } : { deny: [...state.chosen] };
}

export const countryName = (code: string): string => COUNTRIES[code] ?? code;

/** The rule in words (the event's page, the picker's summary). */
export function geoRuleText(rule: GeoRule | undefined): string {
  if (!rule) return 'Anywhere';
  const names = (list: string[]) => list.map(countryName).join(', ');
  return 'allow' in rule ? `Only in ${names(rule.allow)}` : `Everywhere except ${names(rule.deny)}`;
}
