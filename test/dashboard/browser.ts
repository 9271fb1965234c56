import { call } from "../helpers/api";

/** A browser in miniature: keeps cookies between requests and reads the CSRF token from pages. */
export class Browser {
  cookies = new Map<string, string>();

  async request(path: string, options: { form?: Record<string, string | string[]>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    let response: Response;
    if (options.form) {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(options.form)) for (const v of [value].flat()) body.append(name, v);
      response = await call(path, { method: "POST", body: body.toString(), headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers } });
    } else {
      response = await call(path, { headers });
    }
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = pair!.split("=");
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
    return response;
  }

  async csrf(path = "/") {
    const html = await (await this.request(path)).text();
    return html.match(/name="csrf_token" value="([^"]+)"/)![1]!;
  }

  /** An API key of the signed-in person with every scope, to set things up through the API. */
  async apiKey(name = "test setup") {
    const form = {
      step: "create",
      name,
      scopes: ["data:read", "data:write", "connections:write", "workflow:execute"],
      csrf_token: await this.csrf("/app/keys"),
    };
    const html = await (await this.request("/app/keys", { form })).text();
    return html.match(/<code id="new-key-secret">([^<]+)<\/code>/)![1]!;
  }

  async register(email: string) {
    return this.request("/", { form: { step: "register", email, password: "correct horse battery", csrf_token: await this.csrf() } });
  }
}

export const newEmail = () => `dash${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
