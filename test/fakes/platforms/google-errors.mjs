// Google APIs' error body (cloud.google.com/apis/design/errors), shared by the Gmail and Sheets fakes.
import { Answer } from "../fake-kit.mjs";

export const googleError = (code, status, message, reason) =>
  new Answer(code, { error: { code, message, errors: [{ message, domain: "global", reason }], status } });
