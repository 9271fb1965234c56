import { raw } from "hono/html";
import type { Child } from "hono/jsx";

/** Wraps a page's <html> element with the doctype, so browsers render in standards mode. */
export function HtmlDocument(props: { children: Child }) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      {props.children}
    </>
  );
}
