import type { BuiltinTool } from "../types";
import { jsonTransform, textTemplate, uuidTool } from "./data-tools";
import { datetimeTool } from "./datetime";
import { httpRequest } from "./http-request";
import { mathTool } from "./math";
import { memoryTool } from "./memory";
import { waitTool } from "./wait";

/** Tools every user has, with no connection needed. */
export const BUILTIN_TOOLS: BuiltinTool[] = [httpRequest, jsonTransform, textTemplate, datetimeTool, mathTool, uuidTool, memoryTool, waitTool];
