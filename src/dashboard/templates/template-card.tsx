import type { TemplateSummary } from "../../templates/service";
import { Fact } from "../common";

/**
 * One template as a card: what it does, where it belongs, and links to the forms that copy it into
 * a workflow ("Use") or copy and deploy it ("Use and deploy"), each asking first for the person's
 * connections and the variables.
 */
export function TemplateCard(props: { template: TemplateSummary }) {
  const { template } = props;
  return (
    <article class={template.featured ? "card template featured" : "card template"} aria-labelledby={`template-${template.id}`}>
      <h3 id={`template-${template.id}`}>
        {template.name}
        {template.featured ? <span class="badge featured">Featured</span> : null}
      </h3>
      <p>{template.description}</p>
      <dl class="facts">
        <Fact term="Category">{template.category}</Fact>
        <Fact term="Difficulty">{template.difficulty}</Fact>
        <Fact term="Steps">{template.stepCount}</Fact>
        <Fact term="Uses">{template.useCount}</Fact>
        <Fact term="Needs">{template.requiredConnections.length ? template.requiredConnections.join(", ") : "no connection"}</Fact>
      </dl>
      {template.tags.length ? (
        <ul class="tags" aria-label={`Tags of ${template.name}`}>
          {template.tags.map((tag) => (
            <li>{tag}</li>
          ))}
        </ul>
      ) : null}
      <div class="actions">
        <a href={`/app/templates/${encodeURIComponent(template.id)}/use`} aria-label={`Use ${template.name}`}>
          Use
        </a>
        <a href={`/app/templates/${encodeURIComponent(template.id)}/deploy`} aria-label={`Use and deploy ${template.name}`}>
          Use and deploy
        </a>
      </div>
    </article>
  );
}

/** The templates page's own CSS: featured cards stand out by a border and a "Featured" badge, not colour alone. */
export const TEMPLATE_STYLE = `
.filters{display:flex;flex-wrap:wrap;gap:0 16px;align-items:flex-end}.filters>div{flex:1 1 220px}
.filters label.check{display:flex;gap:8px;align-items:center;font-weight:400}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:16px}.cards .card{margin:0}
.template h3{margin-top:0;overflow-wrap:anywhere}
.template .actions{margin-top:12px}
.template.featured{border:2px solid #b45309;background:#fffbeb}
.template h3 .badge{margin-left:8px;vertical-align:middle}
ul.tags{list-style:none;display:flex;flex-wrap:wrap;gap:4px;padding:0;margin:8px 0}ul.tags li{background:#e5e7eb;border-radius:12px;padding:0 8px;font-size:.9em}
`;
