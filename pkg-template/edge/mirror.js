// @ts-check
// The structuredContent mirror, for hosts that drop a tool result's `_meta`
// (docs/hosts.md, "Where the token and the viewUUID reach the View"). Opt-in:
// structuredContent is what the model reads.
import { STATE_META_KEY } from "../common.js";

const MIRRORED = [STATE_META_KEY, "viewUUID"];

/**
 * `result` with the token and the viewUUID of its `_meta` copied into its
 * `structuredContent` (beside what is there), for hosts that hand a View only
 * `content` and `structuredContent` (ext-apps' basic-host). The model sees
 * them there: the token is signed and its secret part encrypted, but its
 * payload is readable and its length costs context. `result` is not changed;
 * one without either string in `_meta` comes back as it is.
 *
 * @template {{ _meta?: Record<string, unknown> | undefined, structuredContent?: unknown }} R
 * @param {R} result
 * @returns {R & { structuredContent: Record<string, unknown> }}
 */
export function mirrorToStructuredContent(result) {
  const meta = result?._meta;
  if (meta === null || typeof meta !== "object") return /** @type {R & { structuredContent: Record<string, unknown> }} */ (result);
  /** @type {Record<string, string>} */
  const mirrored = {};
  for (const key of MIRRORED) if (typeof meta[key] === "string") mirrored[key] = meta[key];
  if (Object.keys(mirrored).length === 0) return /** @type {R & { structuredContent: Record<string, unknown> }} */ (result);
  const current = result.structuredContent;
  const base = current !== null && typeof current === "object" && !Array.isArray(current) ? current : {};
  return { ...result, structuredContent: { ...base, ...mirrored } };
}
