import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../functions/http/api-types';
import { clientIp, requestOrigin, viewerCountry } from '../../functions/http/request-info';
import { clearedCookie, sessionCookie } from '../../functions/http/admin-cookie';
import { rateLimitSubject } from '../../functions/domain/rate-limit-subject';

const event = (headers: Record<string, string>, sourceIp = '198.51.100.7') =>
  ({ headers, requestContext: { http: { sourceIp }, domainName: 'abc.execute-api.example.com' } }) as unknown as ApiEvent;

describe('clientIp', () => {
  it('uses the connection address and ignores X-Forwarded-For', () => {
    expect(clientIp(event({ 'x-forwarded-for': '203.0.113.1' }), null)).toBe('198.51.100.7');
  });
  it('believes CloudFront-Viewer-Address only with the origin secret', () => {
    const headers = { 'cloudfront-viewer-address': '203.0.113.9:4711', 'x-origin-verify': 'origin-secret-123456' };
    expect(clientIp(event(headers), 'origin-secret-123456')).toBe('203.0.113.9');
    expect(clientIp(event(headers), 'another-secret-00000')).toBe('198.51.100.7');
    expect(clientIp(event({ 'cloudfront-viewer-address': '2001:db8::1:4711', 'x-origin-verify': 's'.repeat(20) }), 's'.repeat(20))).toBe('2001:db8::1');
  });
});

describe('viewerCountry', () => {
  it('reads CloudFront-Viewer-Country as sent without an origin secret (npm start), and only with the secret in AWS', () => {
    expect(viewerCountry(event({ 'cloudfront-viewer-country': 'FR' }), null)).toBe('FR');
    expect(viewerCountry(event({}), null)).toBeNull();
    expect(viewerCountry(event({ 'cloudfront-viewer-country': 'France' }), null)).toBeNull();
    const secret = 'origin-secret-123456';
    expect(viewerCountry(event({ 'cloudfront-viewer-country': 'BE', 'x-origin-verify': secret }), secret)).toBe('BE');
    // Straight to API Gateway, past CloudFront: the header is the client's own, so the country is unknown.
    expect(viewerCountry(event({ 'cloudfront-viewer-country': 'BE' }), secret)).toBeNull();
    expect(viewerCountry(event({ 'cloudfront-viewer-country': 'BE', 'x-origin-verify': 'another-secret-00000' }), secret)).toBeNull();
  });
});

describe('admin cookie', () => {
  it('is Secure over https and cleared with Max-Age=0', () => {
    const https = event({ 'x-forwarded-proto': 'https', host: 'd1.cloudfront.net' });
    const now = new Date('2026-11-22T20:00:00Z');
    expect(sessionCookie(https, 't', new Date(now.getTime() + 43_200_000), now)).toBe('stagedoor_admin=t; Path=/api; HttpOnly; SameSite=Strict; Max-Age=43200; Secure');
    // A renewed session's cookie lives as long as what is left of the session.
    expect(sessionCookie(https, 't', new Date(now.getTime() + 600_000), now)).toContain('Max-Age=600;');
    expect(clearedCookie(https)).toContain('Max-Age=0');
    expect(requestOrigin(event({ 'x-forwarded-proto': 'http', host: '[::1]:3000' }))).toEqual({ proto: 'http', hostname: '[::1]' });
  });
});

describe('rate-limit subject', () => {
  it('counts IPv4 per address and IPv6 per /64', () => {
    expect(rateLimitSubject('198.51.100.7')).toBe('198.51.100.7');
    expect(rateLimitSubject('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(rateLimitSubject('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(rateLimitSubject('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitSubject('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitSubject('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitSubject('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
  });
});
