import { describe, expect, it } from 'vitest';
import {
  chooseCountry,
  COUNTRY_LIST,
  dropCountry,
  geoPickerState,
  geoRuleOf,
  geoRuleText,
  matchingCountries,
  setGeoMode,
} from '../../web/src/admin/models/geo-picker-model';

describe('the event form\'s country picker', () => {
  it('searches names (accents and case aside) and codes, leaving out what is chosen', () => {
    expect(COUNTRY_LIST).toHaveLength(249);
    expect(matchingCountries('GB', []).map((c) => c.code)[0]).toBe('GB');
    expect(matchingCountries('cote', []).map((c) => c.code)).toEqual(['CI']);
    expect(matchingCountries('fran', []).map((c) => c.code)).toEqual(['FR']);
    expect(matchingCountries('french', []).map((c) => c.code)).toEqual(['GF', 'PF', 'TF']);
    expect(matchingCountries('fran', ['FR']).map((c) => c.code)).not.toContain('FR');
    expect(matchingCountries('a', [], 5)).toHaveLength(5);
    expect(matchingCountries('  ', [])).toEqual([]);
  });

  it('turns the mode and the chosen countries into the API\'s rule', () => {
    let state = geoPickerState(null);
    expect(geoRuleOf(state)).toBeNull();
    state = setGeoMode(state, 'allow');
    expect(geoRuleOf(state)).toBe('empty');
    state = chooseCountry(chooseCountry(chooseCountry(state, 'FR'), 'BE'), 'FR');
    expect(geoRuleOf(state)).toEqual({ allow: ['BE', 'FR'] });
    expect(geoRuleOf(setGeoMode(state, 'deny'))).toEqual({ deny: ['BE', 'FR'] });
    expect(geoRuleOf(dropCountry(state, 'BE'))).toEqual({ allow: ['FR'] });
    expect(chooseCountry(state, 'XX')).toBe(state);
    expect(geoPickerState({ deny: ['RU'] })).toEqual({ mode: 'deny', chosen: ['RU'] });
    expect(geoRuleText({ deny: ['RU'] })).toBe('Everywhere except Russia');
    expect(geoRuleText(null)).toBe('Anywhere');
  });
});
