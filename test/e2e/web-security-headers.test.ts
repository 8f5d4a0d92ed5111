/**
 * The site's security headers in Chromium, against `npm start`'s program: the viewer plays and the
 * console signs in, shows the authenticator QR code and previews the stream with the
 * Content-Security-Policy of web/security-headers.ts on, with no violation anywhere (the story
 * fails on one, in this suite as in every other browser story); and no page of another site can
 * make the browser clear the media server's cache.
 */
import { describe, expect, it } from 'vitest';
import { cspViolations, launchBrowser } from '../../harness/browser';
import { browserStory, signInAsOwner, videoAdvances, watchConsole } from '../support/browser-story';

describe('web: security headers in Chromium', () => {
  const story = browserStory();

  it('plays, signs in, shows the QR code and previews under the policy, with no violation; frames and foreign DELETEs refused', async () => {
    const { system, browser } = story;
    const api = system.urls.api!;
    const problems: string[] = [];
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Under policy',
      startsAt: new Date(Date.now() - 600_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const { code } = (await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).tokens[0] as { code: string };
    const details = await system.admin('GET', `/api/admin/events/${event.id}`);
    const ffmpeg = story.publish(`${details.ingest.server.replace(/\/+$/, '')}/${details.ingest.streamKey}`);

    // The viewer: hls.js, MediaSource (blob:), its worker (blob:), the media server on another port.
    const viewer = await (await story.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watchConsole(viewer, 'viewer', problems, () => [404]);
    const page = await viewer.goto(`${api}/?code=${code}`);
    expect(page!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page!.headers()['referrer-policy']).toBe('no-referrer');
    await viewer.getByRole('button', { name: 'Watch' }).click();
    await Promise.race([ffmpeg.exited, videoAdvances(viewer, 'video', 90_000)]);

    // The console: sign-in, the account page's QR code (a data: image), the preview player.
    const admin = await story.adminPage();
    let signedIn = false;
    watchConsole(admin, 'admin', problems, () => (signedIn ? [404] : [401, 404]));
    await signInAsOwner(admin, system);
    signedIn = true;
    await admin.goto(`${api}/admin/#/account`);
    await admin.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await admin.getByLabel('Your password').fill(system.adminPassword);
    await admin.getByRole('button', { name: 'Continue' }).click();
    const qr = admin.getByRole('img', { name: 'QR code for your authenticator app' });
    await qr.waitFor();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await admin.getByRole('button', { name: 'Start preview' }).click();
    await Promise.race([ffmpeg.exited, videoAdvances(admin, '.preview-video', 90_000)]);

    expect(cspViolations(browser)).toEqual([]);
    expect(problems).toEqual([]);

    // A page of another site (here: the site's own page, on another port than the media server) cannot send
    // the media server's DELETE: the browser's preflight gets no permission.
    const foreign = await (await story.newContext()).newPage();
    await foreign.goto(`${api}/`);
    const refused = await foreign.evaluate(async (url) => {
      try {
        await fetch(url, { method: 'DELETE' });
        return 'sent';
      } catch {
        return 'refused';
      }
    }, `${system.urls.media}/admin/cache/${event.id}`);
    expect(refused).toBe('refused');

    // No page may be framed (in a browser of its own: this refusal is the one violation it should see).
    const other = await launchBrowser();
    try {
      const framer = await (await other.newContext()).newPage();
      await framer.setContent(`<iframe src="${api}/admin/"></iframe>`);
      await expect.poll(() => cspViolations(other).join('\n'), { timeout: 10_000 }).toMatch(/frame-ancestors 'none'/);
      const framed = framer.frames().find((frame) => frame !== framer.mainFrame());
      expect(await framed?.evaluate(() => document.title).catch(() => null)).not.toBe('Stagedoor admin');
    } finally {
      await other.close();
    }
  }, 240_000);
});
