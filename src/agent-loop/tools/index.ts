/**
 * Tool choice at catalog scale (DESIGN §6.1): which tool definitions each model request carries,
 * the search_tools tool that reaches the rest of the catalog, and the lexical index both rank with.
 */
export { conversationSoFar, foundIn, usedOrFound } from "./conversation";
export { type ToolChoiceExplanation, explainToolChoice, reasonOf } from "./explain";
export { catalogFingerprint } from "./fingerprint";
export { toolIndexBuilds, toolIndexFor } from "./index-cache";
export { MAX_OFFERED, OFFER_ALL_UP_TO, type Offer, type OfferInput, type OfferReason, type OfferedTool, toolSpecOf, toolsForRequest } from "./offer";
export {
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_TOOLS,
  SEARCH_TOOLS_SPEC,
  type FoundTool,
  type SearchToolsOutcome,
  type SearchToolsResult,
  runSearchTools,
} from "./search-tools";
export { type CatalogToolChoice, catalogToolChoice } from "./turn-offer";
export { type MatchedWord, type RankedTool, type ToolIndex, type WeightedText, buildToolIndex } from "./tool-index";
export { FIELD_WEIGHTS, type IndexedField } from "./tool-fields";
