import * as z from 'zod';

/** The environment a config module reads: `process.env` in a deployable, a plain record when wired by hand. */
export type Environment = Record<string, string | undefined>;

/**
 * Schemas of single variables. Unset and empty are the same; each refusal reads as a sentence
 * after the variable's name (`MEDIA_PORT must be a positive whole number, got "x"`).
 */
export const variable = {
  required: () => z.string({ error: 'is required' }).min(1, 'is required'),
  optional: () =>
    z
      .string()
      .optional()
      .transform((value) => value || null),
  positiveInteger: (fallback: number) =>
    z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined || value === '') return fallback;
        const parsed = Number(value);
        if (Number.isInteger(parsed) && parsed > 0) return parsed;
        context.addIssue({ code: 'custom', message: `must be a positive whole number, got "${value}"` });
        return z.NEVER;
      }),
  url: () =>
    z
      .string()
      .optional()
      .transform((value, context) => {
        if (!value) return null;
        if (URL.canParse(value)) return value;
        context.addIssue({ code: 'custom', message: `must be a URL, got "${value}"` });
        return z.NEVER;
      }),
};

/** Parses `env` with `shape` (variable names as keys), or throws one error naming every variable that is missing or malformed. */
export function parseEnvironment<S extends z.ZodRawShape>(shape: S, env: Environment): z.output<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  throw new Error(`configuration: ${problems.join('; ')}`);
}
