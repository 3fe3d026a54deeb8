// The tool call a request carries, `{ name, arguments }`, read from a copy of
// its body (undefined for anything else). The SDK's `requestState.verify`
// seam is given neither the tool nor its arguments, and a requestState sealed
// with `{ request }` opens only with the arguments it was sealed for.

// The SDK's default maxRequestBodySize: it refuses a larger body itself, so the copy is read no further.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export async function toolCall(request) {
  if (request.method !== "POST" || request.body === null) return undefined;
  const reader = request.clone().body.getReader();
  const chunks = [];
  for (let size = 0; ;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    // Not awaited: a branch of a tee'd body settles its cancel only once the framework's branch is done too.
    if (size > MAX_BODY_BYTES) return void reader.cancel().catch(() => {});
    chunks.push(value);
  }
  try {
    const message = JSON.parse(await new Blob(chunks).text());
    if (message?.method !== "tools/call") return undefined;
    return { name: message.params?.name, arguments: message.params?.arguments ?? {} };
  } catch {
    return undefined; // not JSON: the framework answers it
  }
}
