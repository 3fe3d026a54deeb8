// StateCodec's options, read one way: an unknown name is refused with the
// known ones listed, a wrong type names the type that came, and an option a
// call cannot honour (a request on a view token, a secret on a raw token) is a
// TypeError rather than something silently left unchecked.

/** What a value is, for an error message: "a string", "null", "an array", "a Uint8Array". */
export function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  if (t === "object") {
    const name = Object.getPrototypeOf(v)?.constructor?.name;
    return typeof name === "string" && name !== "" && name !== "Object" ? withArticle(name) : "an object";
  }
  return t === "undefined" ? "undefined" : withArticle(t);
}

// "an ArrayBuffer", "an Int8Array", "a Uint8Array" (a "you"), "an object", "a string".
const withArticle = (word) => `a${/^[aeiouAEIO]/.test(word) ? "n" : ""} ${word}`;

/**
 * Refuse `opts` unless it is undefined or an object whose own names are all
 * in `known`. `refused` maps a name this call cannot honour to why.
 */
export function checkNames(opts, known, where, refused = {}) {
  if (opts === undefined) return;
  if (opts === null || typeof opts !== "object" || Array.isArray(opts)) {
    throw new TypeError(`mcp-sealed-state: ${where}'s options must be an object (got ${typeOf(opts)})`);
  }
  for (const name of Object.keys(opts)) {
    if (known.includes(name)) continue;
    if (Object.hasOwn(refused, name)) {
      if (opts[name] === undefined) continue; // an explicit undefined is no option (exactOptionalPropertyTypes)
      throw new TypeError(`mcp-sealed-state: ${where} takes no ${name} option: ${refused[name]}`);
    }
    throw new TypeError(`mcp-sealed-state: ${where} has no option ${JSON.stringify(name)}; its options are ${known.join(", ")}`);
  }
}

/** A safe integer option from `min` to `max`, or `fallback` when undefined or null. */
export function wholeNumber(value, fallback, name, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (value === undefined || value === null) return fallback;
  const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min === 1 ? " (positive)" : min > -Number.MAX_SAFE_INTEGER ? ` >= ${min}` : "";
  if (typeof value !== "number")
    throw new TypeError(
      `mcp-sealed-state: ${name} must be a safe integer${range}, not ${typeOf(value)}${typeof value === "string" ? ` (${JSON.stringify(value.slice(0, 40))}: convert it with Number())` : ""}`,
    );
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`mcp-sealed-state: ${name} must be a safe integer${range} (got ${value})`);
  return value;
}
