import { repoPath } from '../../paths';

/** The files of the two CloudFront Functions (runtime code stays out of the CDK code). */
export const MEDIA_GUARD_FILE = repoPath('edge/validate-request.js');
export const DIRECTORY_INDEX_FILE = repoPath('infra/edge/directory-index.js');

/** The longest any API response may be kept by CloudFront: the event status's and sale's `s-maxage` (functions/routes/public.ts). */
export const API_MAX_SHARED_CACHE_SECONDS = 5;

/**
 * Sign-in steps one address may send in 5 minutes under the optional WAF rule: above the API's own
 * per-address login limit (10 a minute), so only a flood is blocked, and before it spends the route throttles.
 */
export const WAF_SIGN_IN_REQUESTS_PER_5_MIN = 100;

/** Header CloudFront adds to /api/* origin requests; the API believes CloudFront-Viewer-Address only with it. */
export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';
