/**
 * The sign-in page's place for single sign-on (issue 28, item 6: OpenID Connect for operators).
 * Until the identity provider is configured for the console it renders nothing; the SSO button
 * goes here, below the password form.
 */
export function SsoSignIn() {
  return null;
}
