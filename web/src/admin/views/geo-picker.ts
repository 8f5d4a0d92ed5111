/** The event form's searchable country picker (its state: models/geo-picker-model.ts). */
import { h, replaceChildren } from '../../shared/dom';
import type { GeoRule } from '../../../../functions/domain/records';
import {
  chooseCountry,
  countryName,
  dropCountry,
  geoPickerState,
  geoRuleOf,
  matchingCountries,
  setGeoMode,
  type GeoMode,
  type GeoPickerState,
} from '../models/geo-picker-model';

export interface GeoPicker {
  /** The search box: the form's control for the `geo` field (its label and error point at it). */
  search: HTMLInputElement;
  /** The mode radios, drawn above the search. */
  modes: HTMLElement;
  /** The matches and the chosen countries, drawn below it. */
  lists: HTMLElement;
  /** The API's `geo` now, or `empty` for a list with no country. */
  rule(): GeoRule | 'empty';
}

const MODES: { mode: GeoMode; label: string }[] = [
  { mode: 'anywhere', label: 'Anywhere' },
  { mode: 'allow', label: 'Only in the countries below' },
  { mode: 'deny', label: 'Everywhere except the countries below' },
];

export function geoPicker(initial: GeoRule | undefined, describedBy: string): GeoPicker {
  let state: GeoPickerState = geoPickerState(initial);
  const search = h('input', { id: 'geo', name: 'geo', type: 'search', autocomplete: 'off', placeholder: 'Type a country or its code', 'aria-describedby': describedBy });
  const matches = h('ul', { className: 'geo-matches', 'aria-label': 'Matching countries' });
  const chosen = h('ul', { className: 'geo-chosen', 'aria-label': 'Chosen countries' });
  const radios = MODES.map(({ mode, label }) => {
    const radio = h('input', { type: 'radio', name: 'geoMode', value: mode, checked: state.mode === mode });
    radio.addEventListener('change', () => update(setGeoMode(state, mode)));
    return h('label', { className: 'geo-mode' }, radio, ` ${label}`);
  });
  const modes = h('fieldset', { className: 'geo-modes' }, h('legend', null, 'Where viewers may watch'), radios);

  const choose = (code: string) => {
    search.value = '';
    update(chooseCountry(state, code));
    search.focus();
  };
  function update(next: GeoPickerState): void {
    state = next;
    search.disabled = state.mode === 'anywhere';
    replaceChildren(
      matches,
      matchingCountries(search.value, state.chosen).map((country) =>
        h('li', null, h('button', { type: 'button', 'data-code': country.code, onclick: () => choose(country.code) }, `${country.name} (${country.code})`)),
      ),
    );
    replaceChildren(
      chosen,
      state.chosen.map((code) =>
        h(
          'li',
          { className: 'chip', 'data-code': code },
          countryName(code),
          h('button', { type: 'button', className: 'link', 'aria-label': `Remove ${countryName(code)}`, onclick: () => update(dropCountry(state, code)) }, '×'),
        ),
      ),
    );
  }
  search.addEventListener('input', () => update(state));
  // Enter takes the first match rather than sending the form half-filled.
  search.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const first = matchingCountries(search.value, state.chosen)[0];
    if (first) choose(first.code);
  });
  update(state);
  return { search, modes, lists: h('div', { className: 'geo-lists' }, matches, chosen), rule: () => geoRuleOf(state) };
}
