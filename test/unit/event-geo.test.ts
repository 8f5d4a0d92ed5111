import { describe, expect, it } from 'vitest';
import { refreshPlayback, validateCode } from '../../functions/domain/access';
import { COUNTRIES, createEvent, geoAllows, updateEvent } from '../../functions/domain/events';
import { domainFixture, PLAYBACK_BASE_URL, refusal } from '../support/domain-fixture';

const GEO_REFUSAL = { status: 403, body: { error: 'This event is not available in your country', reason: 'geo' } };
const actor = { name: 'admin', clientIp: '127.0.0.1' };
const show = { title: 'Show', startsAt: '2026-12-01T20:00:00Z', endsAt: '2026-12-01T22:00:00Z' };

describe('an event\'s country rule (geo)', () => {
  it('keeps the 249 ISO 3166-1 alpha-2 codes, each one Intl knows, in upper case', () => {
    const codes = Object.keys(COUNTRIES);
    expect(codes).toHaveLength(249);
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const code of codes) {
      expect(code).toMatch(/^[A-Z]{2}$/);
      expect(names.of(code), code).not.toBe(code);
    }
  });

  it('accepts allow, deny or null on create and PUT, and answers 400 naming geo otherwise', async () => {
    const f = domainFixture();
    const created = await createEvent(f.deps, actor, { ...show, geo: { allow: ['FR', 'BE', 'FR'] } });
    expect(created.geo).toEqual({ allow: ['BE', 'FR'] });
    expect((await createEvent(f.deps, actor, show)).geo).toBeNull();
    expect((await updateEvent(f.deps, actor, created.id, { geo: { deny: ['RU'] } })).geo).toEqual({ deny: ['RU'] });
    expect((await updateEvent(f.deps, actor, created.id, { title: 'Renamed' })).geo).toEqual({ deny: ['RU'] });
    expect((await updateEvent(f.deps, actor, created.id, { geo: null })).geo).toBeNull();

    const bad = [
      [{ allow: ['FR'], deny: ['RU'] }, 'geo: give either "allow" or "deny", not both'],
      [{ allow: ['XX'] }, 'geo: unknown country code "XX" (ISO 3166-1 alpha-2, upper case, such as "FR")'],
      [{ allow: ['fr'] }, 'geo: unknown country code "fr" (ISO 3166-1 alpha-2, upper case, such as "FR")'],
      [{ deny: [] }, 'geo: "deny" must be a non-empty list of country codes (null: anywhere)'],
      [{ allow: 'FR' }, 'geo: "allow" must be a non-empty list of country codes (null: anywhere)'],
      [{}, 'geo: must be { "allow": [codes] }, { "deny": [codes] } or null'],
      [['FR'], 'geo: must be { "allow": [codes] }, { "deny": [codes] } or null'],
      ['FR', 'geo: must be { "allow": [codes] }, { "deny": [codes] } or null'],
    ] as const;
    for (const [geo, error] of bad) {
      expect(await refusal(createEvent(f.deps, actor, { ...show, geo })), JSON.stringify(geo)).toMatchObject({ status: 400, body: { error } });
      expect(await refusal(updateEvent(f.deps, actor, created.id, { geo })), JSON.stringify(geo)).toMatchObject({ status: 400, body: { error } });
    }
  });

  it('audits a change of the rule with its old and new value', async () => {
    const f = domainFixture();
    const created = await createEvent(f.deps, actor, { ...show, geo: { allow: ['FR'] } });
    await updateEvent(f.deps, actor, created.id, { geo: { deny: ['RU'] } });
    const page = await f.stores.audit.listAuditEntries({ eventId: created.id, action: 'event.update', cursor: null, limit: 10 });
    expect(page.entries.find((entry) => entry.action === 'event.update')?.changes).toEqual({ geo: { from: { allow: ['FR'] }, to: { deny: ['RU'] } } });
  });

  it('decides: an allow-list admits only its countries, a deny-list all others; an unknown country is in no list', () => {
    expect(geoAllows(null, null)).toBe(true);
    expect(geoAllows(undefined, 'RU')).toBe(true);
    expect(geoAllows({ allow: ['FR', 'BE'] }, 'BE')).toBe(true);
    expect(geoAllows({ allow: ['FR', 'BE'] }, 'DE')).toBe(false);
    expect(geoAllows({ allow: ['FR', 'BE'] }, null)).toBe(false);
    expect(geoAllows({ deny: ['RU'] }, 'RU')).toBe(false);
    expect(geoAllows({ deny: ['RU'] }, 'FR')).toBe(true);
    expect(geoAllows({ deny: ['RU'] }, null)).toBe(true);
  });

  it('refuses validate and refresh from a country the rule leaves out', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ event: { geo: { allow: ['FR'] } } });
    const validate = (country: string | null) => validateCode(f.deps, { code: code.code, ip: '198.51.100.7', playbackBaseUrl: PLAYBACK_BASE_URL, country });
    expect(await refusal(validate('DE'))).toMatchObject(GEO_REFUSAL);
    expect(await refusal(validate(null))).toMatchObject(GEO_REFUSAL);
    const { playbackToken } = await validate('FR');
    await expect(refreshPlayback(f.deps, playbackToken, PLAYBACK_BASE_URL, 'FR')).resolves.toMatchObject({ tokenExpiresIn: 600 });
    expect(await refusal(refreshPlayback(f.deps, playbackToken, PLAYBACK_BASE_URL, 'DE'))).toMatchObject(GEO_REFUSAL);
    // A rule changed during the show: the next refresh hears it.
    await f.stores.events.updateEvent(event.id, { geo: { deny: ['FR'] } }, f.now().toISOString());
    expect(await refusal(refreshPlayback(f.deps, playbackToken, PLAYBACK_BASE_URL, 'FR'))).toMatchObject(GEO_REFUSAL);
    await expect(refreshPlayback(f.deps, playbackToken, PLAYBACK_BASE_URL, null)).resolves.toMatchObject({ tokenExpiresIn: 600 });
  });
});
