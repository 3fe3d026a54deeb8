// The tool call a request carries, `{ name, arguments }`, read from a copy of
// its body (undefined for anything else). The SDK's `requestState.verify`
// seam is given neither the tool nor its arguments, and a requestState sealed
// with `{ request }` opens only with the arguments it was sealed for.
export async function toolCall(request) {
  if (request.method !== "POST") return undefined;
  try {
    const message = await request.clone().json();
    if (message?.method !== "tools/call") return undefined;
    return { name: message.params?.name, arguments: message.params?.arguments ?? {} };
  } catch {
    return undefined; // not JSON: the framework answers it
  }
}
