/**
 * In a real browser against `npm start`'s program: the owner creates
 * a box-office account; that account enrols TOTP from the QR page (the test
 * computes codes from the shown key, as a phone would), signs in with the
 * second step, and finds event editing absent from the console, refused by
 * the API, and its pages answered with what the role cannot do. The accounts
 * page shows what each role can do (the API's own rules); a role change is
 * confirmed first, and the person it signs out is told why.
 */
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { allows, PERMISSION_LABELS, ROLES } from '../../functions/domain/staff';
import { browserStory, shot, shotsAtBothWidths } from '../support/browser-story';
import { noSeriousAccessibilityFindings } from '../support/axe';

const BOX_PASSWORD = 'tickets at the door 2026';

describe('web: staff accounts and two-factor sign-in', () => {
  const story = browserStory();

  async function signIn(page: Page, username: string, password: string) {
    await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
    await page.getByLabel('Login name').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signOut(page: Page) {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
  }

  it('owner creates a box-office account that enrols TOTP, signs in with it and cannot edit events', async () => {
    const { system, browser } = story;
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Staff night',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`uncaught ${error.message}`));

    // The owner: the admin password alone, as the spec's login.
    await page.goto(`${system.urls.api}/admin/`);
    await signIn(page, '', system.adminPassword);
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('heading', { name: 'Staff accounts' }).waitFor();
    await page.getByLabel('Login name').fill('boxoffice');
    await page.getByLabel('Role', { exact: true }).selectOption('box-office');
    await page.getByLabel('Password').fill(BOX_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    const row = page.locator('tr[data-account="boxoffice"]');
    await row.waitFor();
    expect(await row.getByRole('combobox').inputValue()).toBe('box-office');
    // What each role can do: every cell as the API's roles allow it.
    const permissions = page.getByRole('table', { name: 'What each role can do' });
    for (const [permission, label] of Object.entries(PERMISSION_LABELS)) {
      const cells = await permissions.getByRole('row', { name: label }).getByRole('cell').allTextContents();
      expect(cells, label).toEqual(ROLES.map((role) => (allows(role, permission as keyof typeof PERMISSION_LABELS) ? 'Yes' : 'No')));
    }
    await shotsAtBothWidths(page, 'staff-accounts');
    await noSeriousAccessibilityFindings(page, 'accounts');
    await signOut(page);

    // The box office enrols TOTP from the QR page.
    await signIn(page, 'boxoffice', BOX_PASSWORD);
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.getByRole('link', { name: 'boxoffice' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    // A cookie alone cannot set up (or replace) two-factor sign-in: the password first.
    await page.getByLabel('Your password').fill(BOX_PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await qr.waitFor();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await noSeriousAccessibilityFindings(page, 'two-factor enrolment');
    const totp = new TOTP({ secret: Secret.fromBase32((await page.locator('#totp-secret').textContent())!) });
    await page.getByLabel('Code from the app').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in is on' }).waitFor();
    const recoveryCodes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await shotsAtBothWidths(page, 'staff-two-factor-recovery');
    await noSeriousAccessibilityFindings(page, 'recovery codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('On. 10 of 10 recovery codes left.').waitFor();
    await signOut(page);

    // Password, then the code of the next time step (the current one was spent on enrolling).
    await signIn(page, 'boxoffice', BOX_PASSWORD);
    await page.getByRole('heading', { name: 'Second step' }).waitFor();
    await noSeriousAccessibilityFindings(page, 'second sign-in step');
    await page.getByLabel('Code from your authenticator app').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Continue' }).click();
    // Signed in where the page was left: the account page.
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(await page.getByRole('link', { name: 'New event' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Accounts' }).isVisible()).toBe(false);

    await page.getByRole('link', { name: 'Staff night' }).click();
    await page.getByRole('heading', { name: 'Staff night' }).waitFor();
    await page.getByRole('heading', { name: 'Access codes' }).waitFor();
    expect(await page.getByRole('group', { name: 'Event actions' }).count()).toBe(0);
    for (const name of ['Edit', 'Delete', 'Deactivate', 'Archive', 'New stream key']) {
      expect(await page.getByRole('button', { name, exact: true }).or(page.getByRole('link', { name, exact: true })).count(), name).toBe(0);
    }
    expect(await page.getByRole('heading', { name: 'OBS settings' }).isVisible()).toBe(false);
    // The stream preview is for roles that run the stream.
    expect(await page.getByRole('button', { name: 'Start preview' }).count()).toBe(0);
    // The box office still hands out codes, prints tickets, sees who is watching and reads the audit log.
    expect(await page.getByRole('button', { name: 'Generate codes' }).count()).toBe(1);
    await page.getByRole('heading', { name: 'Watching now' }).waitFor();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(await page.getByRole('button', { name: 'Print tickets' }).count()).toBe(1);
    await shot(page, 'staff-box-office-event');

    // Pages the role may not use say so, each on a page of its own.
    for (const [hash, sentence] of [
      ['#/events/new', 'Your role (box office) cannot create events.'],
      [`#/events/${event.id}/edit`, 'Your role (box office) cannot edit events.'],
      ['#/accounts', 'Your role (box office) cannot manage staff accounts.'],
    ] as const) {
      await page.goto(`${system.urls.api}/admin/${hash}`);
      await page.getByRole('heading', { name: 'Not available to your role' }).waitFor();
      expect(await page.locator('main .forbidden').textContent(), hash).toBe(sentence);
    }
    await shotsAtBothWidths(page, 'staff-forbidden');
    await noSeriousAccessibilityFindings(page, 'page not available to the role');
    await page.goto(`${system.urls.api}/admin/#/events/${event.id}`);
    await page.getByRole('heading', { name: 'Staff night' }).waitFor();

    // And the API refuses what the page no longer offers.
    const refused = await page.evaluate(async (id) => {
      const send = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(path, {
          method,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      };
      return [
        await send('PUT', `/api/admin/events/${id}`, { title: 'Hijacked' }),
        await send('PATCH', `/api/admin/events/${id}/deactivate`, {}),
        await send('DELETE', `/api/admin/events/${id}`),
        await send('POST', '/api/admin/events', { title: 'Another', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 60_000).toISOString() }),
        await send('GET', '/api/admin/accounts'),
      ];
    }, event.id);
    for (const answer of refused) expect(answer).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect((await system.admin('GET', `/api/admin/events/${event.id}`)).title).toBe('Staff night');

    // The owner, in another browser, disables the account: the box office's open page is signed out at its next request.
    const ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto(`${system.urls.api}/admin/#/accounts`);
    await signIn(ownerPage, 'owner', system.adminPassword);

    // A role change is confirmed first: cancelled, nothing changes.
    const roleOf = ownerPage.getByRole('combobox', { name: 'Role of boxoffice' });
    await roleOf.selectOption('stream-tech');
    const confirmRole = ownerPage.getByRole('dialog', { name: 'Make boxoffice Stream tech?' });
    await confirmRole.waitFor();
    await noSeriousAccessibilityFindings(ownerPage, 'role change confirmation');
    await confirmRole.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => roleOf.inputValue()).toBe('box-office');
    await roleOf.selectOption('stream-tech');
    await confirmRole.getByRole('button', { name: 'Change role' }).click();
    await expect.poll(() => ownerPage.locator('#status').textContent()).toBe('boxoffice is now Stream tech; their sessions ended.');
    // The notice belongs to the accounts page, not to the next one.
    await ownerPage.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await ownerPage.getByRole('heading', { name: 'Audit log' }).waitFor();
    await noSeriousAccessibilityFindings(ownerPage, 'audit log');
    expect(await ownerPage.locator('#status').textContent()).toBe('');
    // The box office, signed out by the change, is told why, and after signing in again what its role is now.
    await page.getByRole('button', { name: 'Generate codes' }).click();
    await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
    expect(await page.locator('#alert').textContent()).toBe(
      'An owner changed your account (its role, password or two-factor sign-in), which signed you out. Sign in again.',
    );
    await signIn(page, 'boxoffice', BOX_PASSWORD);
    // The app's next code was spent a moment ago: a recovery code instead.
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Your role is now Stream tech (it was Box office).');
    await shotsAtBothWidths(page, 'staff-role-changed');
    await noSeriousAccessibilityFindings(page, 'event page of a stream tech');
    // (The account page does not poll: what signs the page out next is the click below.)
    await page.getByRole('navigation').getByRole('link', { name: 'boxoffice' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await ownerPage.getByRole('navigation').getByRole('link', { name: 'Accounts' }).click();
    const boxRow = ownerPage.locator('tr[data-account="boxoffice"]');
    await boxRow.waitFor();
    expect(await boxRow.textContent()).toContain('On (9 recovery codes)');
    await boxRow.getByRole('button', { name: 'Reset password' }).click();
    await ownerPage.getByLabel('New password for boxoffice').fill('a new box office password');
    await ownerPage.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => ownerPage.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/Password of boxoffice reset/);
    // The reset ended the box office's session already; disabling keeps it out.
    await boxRow.getByRole('button', { name: 'Disable' }).click();
    await ownerPage.locator('tr[data-account="boxoffice"]').getByText('Disabled').waitFor();
    await ownerContext.close();

    // Replacing the phone asks for the password and a second factor first; the request then finds the session gone.
    await page.getByRole('button', { name: 'Move to a new phone' }).click();
    await page.getByLabel('Your password').fill('a new box office password');
    await page.getByLabel('Code from your app, or a recovery code').fill(recoveryCodes[1]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
    expect(await page.locator('#alert').textContent()).toBe('An owner disabled your account, which signed you out. Ask an owner to enable it.');
    await signIn(page, 'boxoffice', 'a new box office password');
    await expect.poll(() => page.locator('#password-error').textContent(), { timeout: 30_000 }).toMatch(/not right/);

    expect(problems).toEqual([]);
    await context.close();
  }, 150_000);
});
