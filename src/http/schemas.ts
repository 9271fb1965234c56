import { z } from "@hono/zod-openapi";

/** Any JSON object (variables, configs, inputs): its shape is the caller's. */
export const JsonObject = z.record(z.string(), z.unknown());

export const FieldErrorSchema = z
  .object({
    location: z.string().openapi({ example: "body" }),
    field: z.string().openapi({ example: "email" }),
    message: z.string().openapi({ example: "Invalid email address" }),
  })
  .openapi("FieldError");

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ description: "Link to the documentation of this error code." }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: "Stable snake_case error code.", example: "validation_failed" }),
    request_id: z.string().nullable(),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .openapi("Problem", { description: "RFC 9457 problem details." });

/** ISO 8601 timestamp in responses. */
export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-11-22T09:30:00.000Z" });

export const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** Path parameter holding a positive integer id. */
export const IntIdParam = <const N extends string>(name: N) =>
  z.object({
    [name]: z.coerce
      .number()
      .int()
      .positive()
      .openapi({ param: { name, in: "path" }, example: 1 }),
  } as Record<N, z.ZodCoercedNumber>);
