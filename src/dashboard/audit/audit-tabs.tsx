/** The two audit pages side by side: the tool calls made (`/app/audit`) and the workspace's changes. */
export function AuditTabs(props: { current: "calls" | "trail"; workspaceId: number }) {
  const tabs = [
    { id: "calls", href: "/app/audit", label: "Tool calls" },
    { id: "trail", href: `/app/workspaces/${props.workspaceId}/audit`, label: "Workspace changes" },
  ] as const;
  return (
    <nav aria-label="Audit pages">
      <ul>
        {tabs.map((tab) => (
          <li>{tab.id === props.current ? <strong aria-current="page">{tab.label}</strong> : <a href={tab.href}>{tab.label}</a>}</li>
        ))}
      </ul>
    </nav>
  );
}
