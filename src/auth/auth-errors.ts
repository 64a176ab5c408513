// Auth.js error codes (the `?error=` of /login) as sentences. One module for both readers: the React login page
// (web/src/components/login-page.tsx imports it) and the server's no-JavaScript fallback of /login
// (src/routes/pages.ts), so both say the same thing. It imports nothing, so the web build can take it as is.
const AUTH_ERRORS: Record<string, string> = {
  AccessDenied: 'Sign-in was refused. Your account may not have a verified email, or the email belongs to another sign-in.',
  OAuthCallbackError: 'Sign-in was cancelled or failed at the identity provider. Please try again.',
  OAuthSignin: 'Could not start sign-in with the identity provider. Please try again.',
  OAuthCallback: 'The identity provider sent back an answer we could not use. Please try again.',
  MissingCSRF: 'Your sign-in form expired. Please try again.',
  Configuration: 'Sign-in is misconfigured on the server. An administrator has to fix it.',
  Verification: 'The sign-in link is no longer valid.',
};

export const authErrorText = (code: string): string =>
  Object.hasOwn(AUTH_ERRORS, code) ? AUTH_ERRORS[code] : 'Sign-in failed. Please try again.';
