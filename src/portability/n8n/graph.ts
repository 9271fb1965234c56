import type { N8nNode, N8nWorkflow } from "./types";

/** Nodes that document a workflow and never run. */
const NOT_RUN = new Set(["n8n-nodes-base.stickyNote"]);

/**
 * An n8n workflow's `main` connections as a graph. Targets of one output are listed as n8n's v1
 * execution order runs them: top to bottom, then left to right on the canvas.
 */
export class N8nGraph {
  private readonly nodes = new Map<string, N8nNode>();
  private readonly incomingOf = new Map<string, string[]>();

  constructor(private readonly workflow: N8nWorkflow) {
    for (const node of workflow.nodes) if (!NOT_RUN.has(node.type)) this.nodes.set(node.name, node);
    for (const [source, kinds] of Object.entries(workflow.connections ?? {})) {
      for (const output of kinds?.main ?? []) {
        for (const edge of output ?? []) {
          if (!this.nodes.has(source) || !this.nodes.has(edge.node)) continue;
          const list = this.incomingOf.get(edge.node) ?? [];
          if (!list.includes(source)) list.push(source);
          this.incomingOf.set(edge.node, list);
        }
      }
    }
  }

  node(name: string): N8nNode | undefined {
    return this.nodes.get(name);
  }

  /** Every node that runs (sticky notes left out), in the export's order. */
  all(): N8nNode[] {
    return [...this.nodes.values()];
  }

  /** The nodes each of a node's main outputs feeds, in the order n8n runs them. */
  outputs(name: string): string[][] {
    const main = this.workflow.connections?.[name]?.main ?? [];
    return main.map((output) => this.byPosition([...new Set((output ?? []).map((edge) => edge.node).filter((target) => this.nodes.has(target)))]));
  }

  incoming(name: string): string[] {
    return this.incomingOf.get(name) ?? [];
  }

  /** Nodes with nothing feeding them, by position. */
  roots(): string[] {
    return this.byPosition(
      this.all()
        .map((node) => node.name)
        .filter((name) => this.incoming(name).length === 0),
    );
  }

  byPosition(names: string[]): string[] {
    const at = (name: string) => this.nodes.get(name)?.position ?? [0, 0];
    return [...names].sort((a, b) => at(a)[1] - at(b)[1] || at(a)[0] - at(b)[0]);
  }

  /** Every node reachable from these (themselves included). */
  reachable(starts: string[]): Set<string> {
    const seen = new Set<string>();
    const queue = [...starts];
    while (queue.length) {
      const name = queue.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      for (const output of this.outputs(name)) queue.push(...output);
    }
    return seen;
  }

  /** The nodes two or more of these branches reach: where they join again (an n8n Merge, or a node both feed). */
  joined(branches: string[][]): Set<string> {
    const counts = new Map<string, number>();
    for (const branch of branches) for (const name of this.reachable(branch)) counts.set(name, (counts.get(name) ?? 0) + 1);
    return new Set([...counts].filter(([, count]) => count > 1).map(([name]) => name));
  }
}
