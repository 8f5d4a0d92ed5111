/**
 * An event's country rule (`geo`): where it may be watched. The viewer's country is what CloudFront
 * tells (`CloudFront-Viewer-Country`); the API checks it at validate and refresh, the edge on every
 * manifest and segment (edge/validate-request.js keeps the same decision in its own words).
 */
import * as z from 'zod';
import type { GeoRule } from '../records';
import { isCountryCode } from './countries';

const shape = 'must be { "allow": [codes] }, { "deny": [codes] } or null';

/** The problem with a rule as sent, or null; codes are ISO 3166-1 alpha-2 in upper case, as CloudFront sends them. */
function geoProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return shape;
  const keys = Object.keys(value);
  if (keys.includes('allow') && keys.includes('deny')) return 'give either "allow" or "deny", not both';
  if (keys.length !== 1 || (keys[0] !== 'allow' && keys[0] !== 'deny')) return shape;
  const list = (value as Record<string, unknown>)[keys[0]];
  if (!Array.isArray(list) || list.length === 0) return `"${keys[0]}" must be a non-empty list of country codes (null: anywhere)`;
  const unknown = list.find((code) => typeof code !== 'string' || !isCountryCode(code));
  if (unknown !== undefined) return `unknown country code ${JSON.stringify(unknown)} (ISO 3166-1 alpha-2, upper case, such as "FR")`;
  return null;
}

/** The `geo` field of an event's create and PUT: a rule with each code once, in order, or null. */
export const geoInput = z.unknown().transform((value, ctx): GeoRule => {
  if (value === null) return null;
  const problem = geoProblem(value);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  const [kind, list] = Object.entries(value as Record<string, string[]>)[0]!;
  const codes = [...new Set(list)].sort();
  return kind === 'allow' ? { allow: codes } : { deny: codes };
});

/**
 * Whether a viewer from `country` (null: CloudFront could not tell) may watch under `rule`. An unknown
 * country is in no list: outside every allow-list, inside no deny-list.
 */
export function geoAllows(rule: GeoRule | undefined, country: string | null): boolean {
  if (!rule) return true;
  const listed = (list: string[]) => country !== null && list.includes(country);
  return 'allow' in rule ? listed(rule.allow) : !listed(rule.deny);
}
