import { Fact } from "../common";
import { formatWhen } from "./agents-list";

/** The bounds PUT /v1/agents/{id}/webhook-secret holds a signing secret to. */
export const SIGNING_SECRET_MIN = 16;
export const SIGNING_SECRET_MAX = 1000;

/**
 * For each verification scheme: its name, where the person pastes the URL, and which secret they
 * bring back. Provider menus move, so each line names the place the provider's own docs name.
 */
const SCHEMES: Record<string, { name: string; paste: string; secret: string }> = {
  stripe: {
    name: "Stripe signature (Stripe-Signature)",
    paste: "In Stripe's Dashboard, Developers → Webhooks → Add endpoint: paste the URL as the endpoint URL.",
    secret: "Bring back the endpoint's signing secret (it starts with whsec_).",
  },
  github: {
    name: "GitHub signature (X-Hub-Signature-256)",
    paste: "In the repository's or organization's Settings → Webhooks → Add webhook: paste the URL as the payload URL, content type application/json.",
    secret: "Type a long random secret into GitHub's Secret field, and the same one here.",
  },
  slack: {
    name: "Slack signature (X-Slack-Signature)",
    paste: "In your Slack app's settings, Event Subscriptions → Request URL: paste the URL. Set the secret here first: Slack checks the URL at once.",
    secret: "Bring back the app's Signing Secret (Basic Information → App Credentials).",
  },
  shopify: {
    name: "Shopify signature (X-Shopify-Hmac-Sha256)",
    paste: "In Shopify admin, Settings → Notifications → Webhooks (or your app's webhook subscriptions): paste the URL, format JSON.",
    secret: "Bring back the signing key Shopify shows under the webhooks list, or your app's client secret.",
  },
  hubspot: {
    name: "HubSpot signature v3 (X-HubSpot-Signature-v3)",
    paste: "In your HubSpot app's Webhooks settings: paste the URL as the target URL.",
    secret: "Bring back the app's client secret (Auth settings).",
  },
  typeform: {
    name: "Typeform signature (Typeform-Signature)",
    paste: "In the form's Connect → Webhooks: add the URL, then edit the webhook and turn on Secret.",
    secret: "Type a long random secret into Typeform's Secret field, and the same one here.",
  },
  token: {
    name: "Token (Authorization: Bearer, or ?token=)",
    paste: "Paste the URL into the sender. It sends Authorization: Bearer <token>; a sender that only takes a URL can use the URL with ?token=<token> added.",
    secret: "Choose a long random token, give it to the sender, and set the same one here.",
  },
};

export interface WebhookTriggerProps {
  action: string;
  csrf: string;
  webhookUrl: string;
  verify: string;
  eventTypes?: string[];
  lastEventAt: string | null;
  signingSecretSet?: boolean;
  /** Right after "Set signing secret" succeeded. */
  secretSaved?: boolean;
  /** Why the secret typed was refused: shown at the field, which comes back empty. */
  secretError?: string;
}

/**
 * A webhook trigger: the address to give the sender, how deliveries are verified, the types it
 * starts runs for, and, for a provider's scheme, the form that sets its signing secret.
 */
export function WebhookTrigger(props: WebhookTriggerProps) {
  const scheme = SCHEMES[props.verify];
  return (
    <>
      <p>Runs when a verified event reaches its webhook.</p>
      <label for="webhook-url">Webhook URL</label>
      <input id="webhook-url" type="text" readonly value={props.webhookUrl} aria-describedby="webhook-url-hint" spellcheck={false} />
      <p id="webhook-url-hint" class="hint">
        Select it to copy it. Deliveries are <code>POST</code> requests with a JSON body.
      </p>
      <dl class="facts" id="webhook-facts">
        <Fact term="Verification">{scheme ? scheme.name : props.verify === "hub" ? "Hub signature (X-Hub-Signature)" : props.verify}</Fact>
        <Fact term="Event types">{props.eventTypes?.length ? props.eventTypes.join(", ") : "all"}</Fact>
        <Fact term="Last event">{formatWhen(props.lastEventAt)}</Fact>
      </dl>
      {props.eventTypes?.length ? <p class="hint">Deliveries of other types are answered and logged as ignored, and start nothing.</p> : null}
      {scheme ? (
        <>
          <p id="webhook-setup">
            {scheme.paste} {scheme.secret}
          </p>
          <SigningSecretForm {...props} />
        </>
      ) : (
        <p id="webhook-setup">
          Signed with this agent's webhook secret, which was shown once when it was deployed: send <code>X-Hub-Timestamp</code> (unix seconds) and{" "}
          <code>X-Hub-Signature: sha256=&lt;HMAC of "timestamp.body"&gt;</code>. No signing secret is needed.
        </p>
      )}
    </>
  );
}

/**
 * "Set signing secret": a password field that always comes back empty, so a secret typed here is
 * never written into a page, not even when it is refused.
 */
function SigningSecretForm(props: WebhookTriggerProps) {
  const describedBy = ["signing-secret-hint", props.secretError ? "signing-secret-error" : undefined].filter(Boolean).join(" ");
  return (
    <form method="post" action={`${props.action}/webhook-secret`} id="signing-secret-form">
      <input type="hidden" name="csrf_token" value={props.csrf} />
      {props.secretSaved ? (
        <p class="notice" role="status">
          Signing secret saved.
        </p>
      ) : null}
      <p id="signing-secret-state">
        {props.signingSecretSet
          ? "A signing secret is set. Setting another replaces it."
          : "No signing secret is set yet: every delivery is refused (and logged as rejected) until one is."}
      </p>
      <label for="signing-secret">Signing secret</label>
      <p id="signing-secret-hint" class="hint">
        {SIGNING_SECRET_MIN} to {SIGNING_SECRET_MAX} characters. Stored encrypted and never shown again.
      </p>
      {props.secretError ? (
        <p id="signing-secret-error" class="field-error">
          {props.secretError}
        </p>
      ) : null}
      <input
        id="signing-secret"
        type="password"
        name="secret"
        value=""
        autocomplete="new-password"
        spellcheck={false}
        required
        minlength={SIGNING_SECRET_MIN}
        maxlength={SIGNING_SECRET_MAX}
        aria-describedby={describedBy}
        aria-invalid={props.secretError ? "true" : undefined}
      />
      <button type="submit" name="step" value="set_secret">
        Set signing secret
      </button>
    </form>
  );
}
