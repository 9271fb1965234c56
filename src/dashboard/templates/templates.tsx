import type { TemplateSummary } from "../../templates/service";
import { ErrorNote, Page } from "../layout";
import { TEMPLATE_STYLE, TemplateCard } from "./template-card";

export interface TemplateFilterValues {
  search: string;
  category: string;
  featuredOnly: boolean;
}

/**
 * `/app/templates`: the marketplace, filtered by a plain GET form (so filters are links one can
 * share and go back to), featured templates in their own section first.
 */
export function TemplatesPage(props: {
  email: string;
  csrf: string;
  templates: TemplateSummary[];
  categories: string[];
  filters: TemplateFilterValues;
  error?: string;
}) {
  const { filters } = props;
  const featured = props.templates.filter((t) => t.featured);
  const others = props.templates.filter((t) => !t.featured);
  const filtered = Boolean(filters.search || filters.category || filters.featuredOnly);
  return (
    <Page title="Templates" email={props.email} csrf={props.csrf} style={TEMPLATE_STYLE}>
      <h1>Templates</h1>
      <p>Ready-made workflows: using one copies it into a new workflow of yours, which you can then change and deploy as an agent.</p>
      <ErrorNote message={props.error} />
      <search aria-label="Filter templates">
        <form method="get" action="/app/templates" class="card">
          <div class="filters">
            <div>
              <label for="template-search">Search templates</label>
              <input id="template-search" type="search" name="search" maxlength={200} value={filters.search} />
            </div>
            <div>
              <label for="template-category">Category</label>
              <select id="template-category" name="category">
                <option value="">All categories</option>
                {props.categories.map((category) => (
                  <option value={category} selected={category === filters.category}>
                    {category}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label class="check" for="template-featured">
                <input id="template-featured" type="checkbox" name="featured" value="1" checked={filters.featuredOnly} />
                Featured only
              </label>
            </div>
          </div>
          <button type="submit">Filter</button> {filtered ? <a href="/app/templates">Clear filters</a> : null}
        </form>
      </search>
      <p>
        {props.templates.length === 1 ? "1 template" : `${props.templates.length} templates`}
        {filtered ? " match these filters." : "."}
      </p>
      {featured.length ? (
        <section aria-labelledby="featured-templates">
          <h2 id="featured-templates">Featured templates</h2>
          <div class="cards">
            {featured.map((template) => (
              <TemplateCard template={template} />
            ))}
          </div>
        </section>
      ) : null}
      {filters.featuredOnly && featured.length === 0 ? <p>No featured template matches.</p> : null}
      {filters.featuredOnly ? null : (
        <section aria-labelledby="more-templates">
          <h2 id="more-templates">{featured.length ? "More templates" : "Templates found"}</h2>
          {others.length ? (
            <div class="cards">
              {others.map((template) => (
                <TemplateCard template={template} />
              ))}
            </div>
          ) : (
            <p>{featured.length ? "No other template matches." : "No template matches. Try fewer words or another category."}</p>
          )}
        </section>
      )}
    </Page>
  );
}
