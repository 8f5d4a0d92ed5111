/** The staff area's public entry: the other areas and the functions import it from here. */
export * from './account-store';
export * from './admin-credentials';
export * from './admin-session';
export * from './enrolment';
export * from './roles';
export * from './sign-in-limits';
export * from './sign-in';
export * from './staff-accounts';
export * from './totp-secrets';
export * from './two-factor';
export * from './staff-inputs';
