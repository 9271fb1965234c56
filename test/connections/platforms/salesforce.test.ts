// Salesforce's tools on a connection made with OAuth (the fake provider), against the fake of the
// REST API v62.0 under /services/data/v62.0: leads created and listed newest first for the New
// lead poll, records created, read, updated and upserted by external ID, SOQL pages read through
// their query locator, and Salesforce's [{message, errorCode, fields}] refusals.
import { describe, expect, it } from "vitest";
import { salesforce } from "../../../src/connections/platforms/salesforce";
import { call, expectProblem } from "../../helpers/api";
import { signedInPerson } from "../oauth-helpers";
import { type ToolResult, connectedWithOAuth, expectCall, jsonOf, requestsOf, respondWith } from "./platform-test-kit";

const ROOT = "/services/data/v62.0";
const INSTANCE = "https://acme.my.salesforce.com";

async function org() {
  const connection = await connectedWithOAuth("salesforce", (base) => ({ instance_url: INSTANCE, base_url: `${base}${ROOT}` }));
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const out = await connection.execute(`salesforce_${tool}`, args);
    expect(out, JSON.stringify(out)).toMatchObject({ success: true, error_message: null });
    return out.result;
  };
  const failed = async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const out = await connection.execute(`salesforce_${tool}`, args);
    expect(out, JSON.stringify(out)).toMatchObject({ success: false, result: null });
    return out;
  };
  return { ...connection, ok, failed };
}

const LEADS_SOQL = "SELECT Id, FirstName, LastName, Email, Company, Status, LeadSource, CreatedDate FROM Lead";

describe("Salesforce", () => {
  it("asks for api and refresh_token, creates leads with the bearer token and lists them newest first for the New lead poll", async () => {
    const { authorize, ok, scenario } = await org();
    expect(authorize).toMatchObject({ scope: "api refresh_token", response_type: "code", code_challenge_method: "S256" });
    expect(salesforce.polls).toEqual([{ title: "New lead", action: "list_new_leads", arguments: { limit: 20 }, items_path: "leads", id_path: "id" }]);

    const ada = await ok("create_lead", {
      first_name: "Ada",
      last_name: "Lovelace",
      company: "Analytical Engines",
      email: "ada@example.com",
      lead_source: "Web",
    });
    expect(ada).toEqual({ id: expect.stringMatching(/^00Q[A-Za-z0-9]{15}$/), success: true, errors: [] });
    const grace = await ok("create_lead", { first_name: "Grace", last_name: "Hopper", company: "Navy", email: "grace@example.com" });
    const linus = await ok("create_lead", { last_name: "Torvalds", company: "Linux", fields: { Description: "From the webinar" } });

    // Ada and Grace share a CreatedDate second: the Id breaks the tie, so the second page goes on after Grace.
    const first = await ok("list_new_leads", { limit: 2 });
    expect(first.leads.map((l: any) => l.id)).toEqual([linus.id, grace.id]);
    expect(first.leads[1]).toEqual({
      id: grace.id,
      first_name: "Grace",
      last_name: "Hopper",
      email: "grace@example.com",
      company: "Navy",
      status: "Open - Not Contacted",
      lead_source: null,
      created_at: expect.stringMatching(/^2026-04-22T09:02:05\.000\+0000$/),
    });
    expect(first.next_cursor).toBe(`2026-04-22T09:02:05Z_${grace.id}`);
    const rest = await ok("list_new_leads", { limit: 2, cursor: first.next_cursor });
    expect(rest).toEqual({ leads: [expect.objectContaining({ id: ada.id, first_name: "Ada", lead_source: "Web" })], next_cursor: null });

    const [create, , createLinus, list, more] = await requestsOf(scenario);
    expectCall(create!, "POST", `${ROOT}/sobjects/Lead`);
    expect(create!.headers.authorization).toMatch(/^Bearer at_[\w-]{10,}$/);
    expect(jsonOf(create!)).toEqual({ FirstName: "Ada", LastName: "Lovelace", Company: "Analytical Engines", Email: "ada@example.com", LeadSource: "Web" });
    expect(jsonOf(createLinus!)).toEqual({ Description: "From the webinar", LastName: "Torvalds", Company: "Linux" });
    expectCall(list!, "GET", `${ROOT}/query`, { q: `${LEADS_SOQL} ORDER BY CreatedDate DESC, Id DESC LIMIT 3` });
    expectCall(more!, "GET", `${ROOT}/query`, {
      q: `${LEADS_SOQL} WHERE CreatedDate < 2026-04-22T09:02:05Z OR (CreatedDate = 2026-04-22T09:02:05Z AND Id < '${grace.id}') ORDER BY CreatedDate DESC, Id DESC LIMIT 3`,
    });
    expect(more!.headers.authorization).toBe(create!.headers.authorization);
  });

  it("creates, reads and updates a record, and upserts by external ID: created, then updated", async () => {
    const { ok, scenario } = await org();
    const account = await ok("create_record", { sobject: "Account", fields: { Name: "Acme", Industry: "Retail", External_Id__c: "ACME-1" } });
    expect(account).toEqual({ id: expect.stringMatching(/^001/), success: true, errors: [] });
    expect(await ok("update_record", { sobject: "Account", record_id: account.id, fields: { NumberOfEmployees: 120, Website: null } })).toEqual({
      id: account.id,
      updated: true,
    });
    expect(await ok("get_record", { sobject: "Account", record_id: account.id, fields: ["Name", "NumberOfEmployees", "Industry"] })).toEqual({
      id: account.id,
      sobject: "Account",
      fields: { Name: "Acme", NumberOfEmployees: 120, Industry: "Retail", Id: account.id },
    });
    const whole = await ok("get_record", { sobject: "Account", record_id: account.id });
    expect(whole).toMatchObject({ id: account.id, sobject: "Account", fields: { Id: account.id, Name: "Acme", External_Id__c: "ACME-1" } });
    expect(whole.fields).not.toHaveProperty("attributes");

    const created = await ok("upsert_by_external_id", {
      sobject: "Account",
      external_id_field: "External_Id__c",
      external_id: "GLOBEX 7/b",
      fields: { Name: "Globex" },
    });
    expect(created).toEqual({ id: expect.stringMatching(/^001/), created: true });
    const updated = await ok("upsert_by_external_id", {
      sobject: "Account",
      external_id_field: "External_Id__c",
      external_id: "ACME-1",
      fields: { Industry: "Media" },
    });
    expect(updated).toEqual({ id: account.id, created: false });
    // A lookup set through the parent's external ID.
    const contact = await ok("create_record", { sobject: "Contact", fields: { LastName: "Coyote", Account: { External_Id__c: "ACME-1" } } });
    expect(await ok("get_record", { sobject: "Contact", record_id: contact.id, fields: ["AccountId"] })).toMatchObject({ fields: { AccountId: account.id } });

    const [create, update, read, readAll, upsertNew, upsertOld, createContact] = await requestsOf(scenario);
    expectCall(create!, "POST", `${ROOT}/sobjects/Account`);
    expect(jsonOf(create!)).toEqual({ Name: "Acme", Industry: "Retail", External_Id__c: "ACME-1" });
    expectCall(update!, "PATCH", `${ROOT}/sobjects/Account/${account.id}`);
    expect(jsonOf(update!)).toEqual({ NumberOfEmployees: 120, Website: null });
    expectCall(read!, "GET", `${ROOT}/sobjects/Account/${account.id}`, { fields: "Name,NumberOfEmployees,Industry" });
    expectCall(readAll!, "GET", `${ROOT}/sobjects/Account/${account.id}`);
    expectCall(upsertNew!, "PATCH", `${ROOT}/sobjects/Account/External_Id__c/GLOBEX%207%2Fb`);
    expect(jsonOf(upsertNew!)).toEqual({ Name: "Globex" });
    expectCall(upsertOld!, "PATCH", `${ROOT}/sobjects/Account/External_Id__c/ACME-1`);
    expect(jsonOf(createContact!)).toEqual({ LastName: "Coyote", Account: { External_Id__c: "ACME-1" } });
  });

  it("runs a SOQL query a page at a time, the next page read from /query/{locator} only", async () => {
    const { ok, person, scenario } = await org();
    const soql = "SELECT Id, LastName FROM Contact WHERE FirstName = 'sample' ORDER BY LastName DESC";
    const first = await ok("query", { soql, batch_size: 200 });
    expect(first).toMatchObject({ total_size: 250, done: false, next_cursor: expect.stringMatching(/^01g[A-Za-z0-9]{15}-200$/) });
    expect(first.records).toHaveLength(200);
    expect(first.records[0]).toEqual({ Id: expect.stringMatching(/^003/), LastName: "Contact 250" });
    const second = await ok("query", { cursor: first.next_cursor });
    expect(second).toMatchObject({ total_size: 250, done: true, next_cursor: null });
    expect(second.records.map((r: any) => r.LastName).slice(-1)).toEqual(["Contact 001"]);
    expect(second.records).toHaveLength(50);

    const [page1, page2] = await requestsOf(scenario);
    expectCall(page1!, "GET", `${ROOT}/query`, { q: soql });
    expect(page1!.headers["sforce-query-options"]).toBe("batchSize=200");
    expectCall(page2!, "GET", `${ROOT}/query/${first.next_cursor}`);

    // A cursor is a query locator, nothing else (no URL, no path), and comes without soql.
    for (const args of [{ cursor: "https://evil.example/x" }, { cursor: "../limits" }, { soql, cursor: first.next_cursor }, {}]) {
      const response = await call("/v1/tools/execute", { token: person.key, json: { name: "salesforce_query", arguments: args } });
      await expectProblem(response, 422, "validation_failed");
    }
    for (const sobject of ["Lead/../Account", "Lead?x=1", "Lead Name"]) {
      const response = await call("/v1/tools/execute", {
        token: person.key,
        json: { name: "salesforce_create_record", arguments: { sobject, fields: { Name: "x" } } },
      });
      await expectProblem(response, 422, "validation_failed");
    }
    expect(await requestsOf(scenario)).toHaveLength(2);
  });

  it("reads Salesforce's refusals: missing fields, an invalid field, a malformed query, a missing record, a duplicate, several matches", async () => {
    const { ok, failed } = await org();
    expect(await failed("create_record", { sobject: "Lead", fields: { LastName: "Nobody" } })).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: "Salesforce answered 400: REQUIRED_FIELD_MISSING: Required fields are missing: [Company]",
    });
    expect(await failed("query", { soql: "SELECT Id, Nme FROM Lead" })).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: expect.stringMatching(
        /^Salesforce answered 400: INVALID_FIELD: SELECT Id, Nme FROM Lead \^ ERROR at Row:1:Column:12 No such column 'Nme' on entity 'Lead'\./,
      ),
    });
    expect(await failed("query", { soql: "SELECT Id FORM Lead" })).toMatchObject({
      error_status: 400,
      error_message: "Salesforce answered 400: MALFORMED_QUERY: SELECT Id FORM Lead ^ ERROR at Row:1:Column:11 unexpected token: 'FORM'",
    });
    expect(await failed("update_record", { sobject: "Account", record_id: "001Dn0000000000AAX", fields: { Name: "Gone" } })).toMatchObject({
      error_status: 404,
      retryable: false,
      error_message: "Salesforce answered 404: NOT_FOUND: The requested resource does not exist",
    });
    expect(await failed("create_record", { sobject: "Account", fields: { Name: "Acme", CreatedDate: "2020-01-01T00:00:00Z" } })).toMatchObject({
      error_status: 400,
      error_message: expect.stringContaining("INVALID_FIELD_FOR_INSERT_UPDATE: Unable to create/update fields: CreatedDate."),
    });

    const ada = await ok("create_lead", { last_name: "Lovelace", company: "Engines", email: "ada@example.com" });
    expect(await failed("create_lead", { last_name: "Byron", company: "Engines", email: "ADA@example.com" })).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: `Salesforce answered 400: DUPLICATES_DETECTED: You're creating a duplicate record. We recommend you use an existing record instead. (matching records: ${ada.id})`,
    });

    const one = await ok("create_record", { sobject: "Account", fields: { Name: "Initech", External_Id__c: "DUP-1" } });
    const two = await ok("create_record", { sobject: "Account", fields: { Name: "Initrode", External_Id__c: "dup-1" } });
    expect(
      await failed("upsert_by_external_id", { sobject: "Account", external_id_field: "External_Id__c", external_id: "DUP-1", fields: { Name: "X" } }),
    ).toMatchObject({
      error_status: 300,
      retryable: false,
      error_message: `Salesforce answered 300: The external ID matches 2 records (${one.id}, ${two.id}); update one of them by its id, or make the value unique.`,
    });
  });

  it("REQUEST_LIMIT_EXCEEDED is retried for the concurrent limit, not for a spent daily allowance; a refused token is renewed once, then the connection's failure", async () => {
    const { failed, scenario } = await org();
    await respondWith(scenario, 403, [{ message: "TotalRequests Limit exceeded.", errorCode: "REQUEST_LIMIT_EXCEEDED" }]);
    expect(await failed("list_new_leads", {})).toMatchObject({
      error_status: 403,
      retryable: false,
      error_message: "Salesforce answered 403: REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded.",
    });
    await respondWith(scenario, 403, [{ message: "ConcurrentPerOrgLongTxn Limit exceeded.", errorCode: "REQUEST_LIMIT_EXCEEDED" }]);
    expect(await failed("list_new_leads", {})).toMatchObject({ error_status: 403, retryable: true });

    await respondWith(scenario, 401, [{ message: "Session expired or invalid", errorCode: "INVALID_SESSION_ID" }]);
    expect(await failed("get_record", { sobject: "Lead", record_id: "00QDn0000000001AAX" })).toMatchObject({
      error_status: 401,
      retryable: false,
      error_message: "Salesforce answered 401: INVALID_SESSION_ID: Session expired or invalid",
    });
    const [, , refused, retried] = await requestsOf(scenario);
    expectCall(refused!, "GET", `${ROOT}/sobjects/Lead/00QDn0000000001AAX`);
    expectCall(retried!, "GET", `${ROOT}/sobjects/Lead/00QDn0000000001AAX`);
    expect(retried!.headers.authorization).toMatch(/^Bearer at_/);
    expect(retried!.headers.authorization).not.toBe(refused!.headers.authorization);
  });

  it("calls the org's My Domain under /services/data/v62.0, and takes only an https Salesforce domain as instance_url", async () => {
    expect(salesforce.baseUrl!({ instance_url: "https://acme.my.salesforce.com/" })).toBe("https://acme.my.salesforce.com/services/data/v62.0");
    expect(salesforce.baseUrl!({ instance_url: INSTANCE, base_url: "https://proxy.example/sf" })).toBe("https://proxy.example/sf");
    // "Test connection" reads the version's resource list: the base URL itself.
    const asked: unknown[] = [];
    const request = async (asking: unknown) => {
      asked.push(asking);
      return { sobjects: `${ROOT}/sobjects` };
    };
    const client = { config: { instance_url: INSTANCE }, request };
    expect(await salesforce.test!(client as any)).toBe("Connected; the org's REST API v62.0 answers.");
    expect(asked).toEqual([{ method: "GET", path: "" }]);
    const person = await signedInPerson();
    for (const instance_url of [
      "http://acme.my.salesforce.com",
      "https://acme.my.salesforce.com.evil.example",
      "https://acme.my.salesforce.com/services/data",
      undefined,
    ]) {
      const response = await call("/v1/connections/oauth/start", {
        token: person.key,
        json: { platform: "salesforce", name: "Org", config: { instance_url, client_id: "own", client_secret: "secret" } },
      });
      const problem = await expectProblem(response, 422, "validation_failed");
      expect(JSON.stringify(problem.errors)).toContain("instance_url");
    }
    const sandbox = await call("/v1/connections/oauth/start", {
      token: person.key,
      json: {
        platform: "salesforce",
        name: "Sandbox",
        config: { instance_url: "https://acme--dev.sandbox.my.salesforce.com", client_id: "own", client_secret: "secret" },
      },
    });
    expect(sandbox.status).toBe(201);
  });
});
