import { createRoute, createRouter, authedRoute, publicErrors, z } from "../http/router";
import { HubError } from "../core/errors";
import { ProblemSchema } from "../http/schemas";
import { perAddressAuthLimit } from "../http/rate-limit";
import { presentUser, registerUser, signIn, startSession } from "./accounts";
import { revokeGrant } from "./grants";
import { Email, Password, TokenResponseSchema, UserSchema } from "./schemas";

const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: ProblemSchema } } });

const register = createRoute({
  method: "post",
  path: "/auth/register",
  tags: ["Authentication"],
  summary: "Create an account",
  description:
    "Creates a user and signs them in. Registering again with the same email and password signs that user in, with the same answer. Any other refusal is a 409 that does not say whether the email has an account, after the same work. This deployment sends no mail, so it cannot answer a taken email exactly like a free one (that would need a confirmation link): a caller who gets 409 learns only that these details cannot make an account, and the per-address limit bounds how fast anyone can ask. Can be closed with the ALLOW_REGISTRATION var.",
  security: [],
  middleware: [perAddressAuthLimit] as const,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({ email: Email, password: Password, name: z.string().trim().min(1).max(100).nullish() }),
        },
      },
    },
  },
  responses: {
    ...publicErrors,
    201: { description: "Account created", content: { "application/json": { schema: TokenResponseSchema.extend({ user: UserSchema }) } } },
    403: problem("Registration is closed on this deployment."),
    409: problem("An account could not be created with these details."),
    422: problem("Invalid email or password."),
    429: problem("Too many attempts from this address, or too many failed sign-ins for this account."),
  },
});

const login = createRoute({
  method: "post",
  path: "/auth/login",
  tags: ["Authentication"],
  summary: "Sign in (internal JWT)",
  description:
    "Exchanges email and password for a JWT access token (1 hour) and a refresh token. Renew with `POST /v1/auth/token`, `grant_type=refresh_token`. Failed sign-ins are limited per address and per account (ACCOUNT_AUTH_RATE_LIMIT_PER_MINUTE, whatever the address): once an account's are used up, attempts for it get 429 with Retry-After, without the password being checked, until the minute's window ends.",
  middleware: [perAddressAuthLimit] as const,
  security: [],
  request: { body: { required: true, content: { "application/json": { schema: z.object({ email: Email, password: z.string().max(256) }) } } } },
  responses: {
    ...publicErrors,
    200: { description: "Signed in", content: { "application/json": { schema: TokenResponseSchema } } },
    401: problem("Wrong email or password."),
    429: problem("Too many attempts from this address, or too many failed sign-ins for this account."),
  },
});

const logout = authedRoute(
  "data:read",
  {
    method: "post",
    path: "/auth/logout",
    tags: ["Authentication"],
    summary: "Sign out",
    description: "Revokes the session or OAuth grant of the calling token, with all its access and refresh tokens.",
    responses: { 204: { description: "Signed out" }, 400: problem("The credential is an API key; revoke it instead.") },
  },
  { role: "person" },
);

export const publicAccountRoutes = createRouter()
  .openapi(register, async (c) => {
    if (!c.get("config").allowRegistration) throw new HubError("registration_closed", "Registration is closed on this deployment.");
    const body = c.req.valid("json");
    const user = await registerUser(c.get("runtime"), body);
    const tokens = await startSession(c.get("db"), c.get("config"), user);
    c.header("Cache-Control", "no-store");
    return c.json({ user: presentUser(user), ...tokens }, 201);
  })
  .openapi(login, async (c) => {
    const { email, password } = c.req.valid("json");
    const user = await signIn(c.get("runtime"), { email, password });
    c.header("Cache-Control", "no-store");
    return c.json(await startSession(c.get("db"), c.get("config"), user), 200);
  });

export const accountRoutes = createRouter().openapi(logout, async (c) => {
  const principal = c.get("principal");
  if (principal.kind === "api_key") throw new HubError("bad_request", "API keys do not sign in; revoke the key with DELETE /v1/auth/api-keys/{id}.");
  await revokeGrant(c.var.ctx.db, principal.credentialId);
  return c.body(null, 204);
});
