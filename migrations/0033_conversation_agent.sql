-- A conversation may belong to an agent (a chat agent's conversation): its turns use the agent's
-- agent_config (instructions, provider, model, tools). Deleting the agent keeps the conversation,
-- which then answers as a plain one.
ALTER TABLE conversations ADD COLUMN agent_id TEXT REFERENCES agents(id) ON DELETE SET NULL;
