/**
 * The platform picker of the connections pages: a search over the platforms (name, id, what they
 * do, their category) and a choice grouped by category. Both are plain GET forms: searching or
 * choosing only shows a page, it changes nothing, and it works without a script.
 */

export interface PlatformChoice {
  id: string;
  name: string;
  description: string;
  /** A PlatformCategory of the declarations (custom platforms: "custom"). */
  category: string;
  /** Connects with OAuth ("Connect with …"). */
  oauth?: boolean;
  /** Connects only with OAuth: no settings form to test and save. */
  oauthOnly?: boolean;
}

/** A search longer than this is cut: it is matched against short names and sentences. */
export const MAX_PLATFORM_QUERY_CHARS = 100;

/** Categories in the order a marketer looks for them; any other comes after, by name. */
const CATEGORIES: [string, string][] = [
  ["email", "Email"],
  ["messaging", "Messaging"],
  ["crm", "CRM"],
  ["marketing", "Marketing"],
  ["ecommerce", "E-commerce"],
  ["payments", "Payments"],
  ["forms", "Forms"],
  ["analytics", "Analytics"],
  ["social", "Social"],
  ["support", "Support"],
  ["productivity", "Productivity"],
  ["database", "Databases"],
  ["developer", "Developer tools"],
  ["mcp", "MCP servers"],
  ["ai", "AI models"],
  ["custom", "Your platforms"],
];
const LABELS = new Map(CATEGORIES);
const ORDER = new Map(CATEGORIES.map(([id], index) => [id, index]));

export const categoryLabel = (category: string) => LABELS.get(category) ?? category.charAt(0).toUpperCase() + category.slice(1);

/** The platforms a search matches (all of them for none), the chosen one always kept. */
export function matchingPlatforms(platforms: PlatformChoice[], query: string, selected?: string): PlatformChoice[] {
  const words = query.trim().toLowerCase().slice(0, MAX_PLATFORM_QUERY_CHARS).split(/\s+/).filter(Boolean);
  if (!words.length) return platforms;
  return platforms.filter((platform) => {
    if (platform.id === selected) return true;
    const text = `${platform.name} ${platform.id} ${platform.description} ${platform.category} ${categoryLabel(platform.category)}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/** The platforms by category, categories in CATEGORIES' order, platforms by name within each. */
export function groupedByCategory(platforms: PlatformChoice[]): { category: string; label: string; platforms: PlatformChoice[] }[] {
  const groups = new Map<string, PlatformChoice[]>();
  for (const platform of platforms) groups.set(platform.category, [...(groups.get(platform.category) ?? []), platform]);
  return [...groups.entries()]
    .sort(([a], [b]) => (ORDER.get(a) ?? ORDER.size) - (ORDER.get(b) ?? ORDER.size) || a.localeCompare(b))
    .map(([category, list]) => ({ category, label: categoryLabel(category), platforms: list.sort((a, b) => a.name.localeCompare(b.name)) }));
}

export function PlatformChooser(props: { platforms: PlatformChoice[]; selected?: string; query?: string }) {
  const query = (props.query ?? "").slice(0, MAX_PLATFORM_QUERY_CHARS);
  const shown = matchingPlatforms(props.platforms, query, props.selected);
  return (
    <div class="platform-chooser">
      <search>
        <form method="get" action="/app/connections/new">
          <label for="platform-search">Search platforms</label>
          <input type="search" id="platform-search" name="q" value={query} maxlength={MAX_PLATFORM_QUERY_CHARS} placeholder="e.g. email, Stripe, CRM" />{" "}
          <button type="submit" class="secondary">
            Search
          </button>
        </form>
      </search>
      {shown.length ? (
        <form method="get" action="/app/connections/new">
          <label for="platform">Platform</label>
          <select id="platform" name="platform" required>
            {props.selected ? null : <option value="">{query ? `Choose one of ${shown.length} matching…` : "Choose a platform…"}</option>}
            {groupedByCategory(shown).map((group) => (
              <optgroup label={group.label}>
                {group.platforms.map((platform) => (
                  <option value={platform.id} selected={platform.id === props.selected}>
                    {platform.name}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>{" "}
          <button type="submit" class="secondary">
            Choose
          </button>
        </form>
      ) : (
        <p role="status">
          {`No platform matches “${query}”. Try another word, or `}
          <a href="/app/connections/new">see them all</a>.
        </p>
      )}
    </div>
  );
}
