/**
 * The sign-in page's single sign-on (docs/operators.md, "Single sign-on"): below the password
 * form, the identity provider's button. Where the service has no provider configured the button
 * answers with the API's `sso_not_configured` message.
 */
import { OperatorSsoButton } from '../sso';

export function SsoSignIn() {
  return (
    <section aria-labelledby="console-sso-title" className="stack sso">
      <h2 id="console-sso-title" className="small muted">
        Or use your organisation’s identity provider
      </h2>
      <OperatorSsoButton returnTo="/portal/console" />
    </section>
  );
}
