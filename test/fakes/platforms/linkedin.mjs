// LinkedIn's API (learn.microsoft.com/en-us/linkedin/): the OpenID Connect userinfo of one member,
// and the versioned Posts API, whose posts are kept per scenario. A created post answers 201 with
// no body and its URN in x-restli-id; a delete answers 204, for a post already gone too. Refusals
// are LinkedIn's {status, serviceErrorCode, code, message}: 401 EMPTY_ACCESS_TOKEN or
// INVALID_ACCESS_TOKEN for a missing or unknown token (tokens of the fake OAuth provider start
// "at_"), 400 VERSION_MISSING and 426 NONEXISTENT_VERSION for the LinkedIn-Version header, 403
// ACCESS_DENIED for an author the member may not post as, and Rest.li's 422 DUPLICATE_POST for
// the same content twice.
import { Answer, Store } from "../fake-kit.mjs";

export const LINKEDIN_MEMBER = {
  sub: "782bbtaQ",
  email_verified: true,
  name: "Ada Lovelace",
  locale: { country: "GB", language: "en" },
  given_name: "Ada",
  family_name: "Lovelace",
  email: "ada@example.com",
  picture: "https://media.licdn.com/dms/image/v2/C4E03AQH/profile-displayphoto-shrink_100_100/0/1700000000000",
};
/** The company page the member administers (with w_organization_social). */
export const LINKEDIN_ORGANIZATION = "urn:li:organization:2414183";
/** Versions this fake treats as active: a year back from the newest. */
const OLDEST_VERSION = "202511";
const NEWEST_VERSION = "202611";

const posts = new Store();

const refuse = (status, code, message, serviceErrorCode) => new Answer(status, { status, serviceErrorCode, code, message });

function unauthorized(req) {
  const header = String(req.headers.authorization ?? "");
  if (!header) return refuse(401, "EMPTY_ACCESS_TOKEN", "Empty oauth2_access_token", 65604);
  if (!header.startsWith("Bearer at_")) return refuse(401, "INVALID_ACCESS_TOKEN", "Invalid access token", 65600);
  return undefined;
}

/** /rest calls name an active LinkedIn-Version (learn.microsoft.com/en-us/linkedin/marketing/versioning). */
function refusedVersion(req) {
  const version = req.headers["linkedin-version"];
  if (!version) return refuse(400, "VERSION_MISSING", "A version must be present. Please specify a version by adding the LinkedIn-Version header.");
  if (!/^\d{6}$/.test(version) || version < OLDEST_VERSION || version > NEWEST_VERSION)
    return refuse(426, "NONEXISTENT_VERSION", `Requested version ${version} is not active`);
  return undefined;
}

function create(req) {
  const body = req.body ?? {};
  const member = `urn:li:person:${LINKEDIN_MEMBER.sub}`;
  if (body.author !== member && body.author !== LINKEDIN_ORGANIZATION)
    return refuse(403, "ACCESS_DENIED", `Not enough permissions to access: partnerApiPostsExternal.CREATE.${req.headers["linkedin-version"]}01`, 100);
  const same = posts.find(
    req.scenario,
    (p) => p.author === body.author && p.commentary === body.commentary && p.content?.article?.source === body.content?.article?.source,
  );
  if (same)
    return new Answer(422, {
      errorDetailType: "com.linkedin.common.error.BadRequest",
      message: `com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of ${same.id}`,
      errorDetails: { inputErrors: [{ description: "Duplicate post is detected", input: {}, code: "DUPLICATE_POST" }] },
      status: 422,
    });
  const id = `urn:li:share:${7390000000000000000n + BigInt(posts.list(req.scenario).length + 1)}`;
  posts.add(req.scenario, { ...body, id });
  return new Answer(201, "", { "x-restli-id": id });
}

export const linkedinRoutes = [
  ["GET", /^\/v2\/userinfo$/, (req) => unauthorized(req) ?? LINKEDIN_MEMBER],
  ["POST", /^\/rest\/posts$/, (req) => unauthorized(req) ?? refusedVersion(req) ?? create(req)],
  // A deleted post, or one never made, is gone: 204 either way.
  ["DELETE", /^\/rest\/posts\/([^/]+)$/, (req) => unauthorized(req) ?? refusedVersion(req) ?? new Answer(204, "")],
];
