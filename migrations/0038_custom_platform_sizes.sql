-- A custom platform's tool count and the size of its declarations (UTF-8 bytes of `tools`), kept
-- beside them so that listing platforms and paging the tool catalog read two integers instead of
-- up to 1.9 MB of JSON per platform. Rows made before are measured once here.
ALTER TABLE `custom_platforms` ADD `tool_count` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `custom_platforms` ADD `tools_bytes` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE `custom_platforms` SET `tool_count` = json_array_length(`tools`), `tools_bytes` = length(CAST(`tools` AS BLOB));
